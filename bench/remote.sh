#!/usr/bin/env bash
# Registry benchmarks on loopback, side by side in one run with the peers a
# user would pick instead: nginx serving the same files (curl for a file,
# wrk for blobs), and sealvol's own local store.
#   bench/remote.sh [BUILD_DIR]     BENCH_SIZE=bytes (default 1 GB)
# Prints a Markdown table. Client, server and nginx share this machine's
# cores, so every figure includes the other side's CPU.
set -euo pipefail
BUILD=${1:-build}
SV=$(realpath "$BUILD/sealvol")
GEN=$(realpath "$BUILD/sealvol-genmodel")
SIZE=${BENCH_SIZE:-1000000000}
W=${BENCH_DIR:-/tmp/sealvol-bench-remote}
cleanup() {
  for m in "$W"/mnt*; do umount -l "$m" 2>/dev/null || true; done
  [ -f "$W/nginx.pid" ] && kill "$(cat "$W/nginx.pid")" 2>/dev/null || true
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null || true
}
trap cleanup EXIT
cleanup
rm -rf "$W"
mkdir -p "$W"
unset SEALVOL_REMOTE SEALVOL_TOKEN

source "$(dirname "$0")/lib.sh"
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

echo "generating $SIZE bytes of model..." >&2
"$GEN" "$W/model" --size "$SIZE" --seed 17 >/dev/null
BYTES=$(du -sb --apparent-size "$W/model" | cut -f1)
SHARD=$(cd "$W/model" && ls -S model-*.safetensors | head -1)
SHARD_BYTES=$(stat -c %s "$W/model/$SHARD")

# The server, on its own empty store.
"$SV" --store "$W/server" serve --listen 127.0.0.1:0 --port-file "$W/port" \
  --access-log /dev/null 2>"$W/serve.log" &
SERVER=$!
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.1; done
URL=http://127.0.0.1:$(cat "$W/port")

# 1. Publish: to the embedded store, and to the registry.
cat "$W"/model/* >/dev/null
timed local_pub "$SV" --store "$W/local" publish "$W/model" bench/m:v1 -q --no-cache
timed remote_pub "$SV" --remote "$URL" publish "$W/model" bench/m:v1 -q --no-cache

# nginx serving the model files and the server's blob files.
mkdir -p "$W/nginx"
cat >"$W/nginx.conf" <<CONF
worker_processes 2;
pid $W/nginx.pid;
error_log $W/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path $W/nginx;
  proxy_temp_path $W/nginx;
  fastcgi_temp_path $W/nginx;
  uwsgi_temp_path $W/nginx;
  scgi_temp_path $W/nginx;
  server {
    listen 127.0.0.1:0;
    location /model/ { alias $W/model/; }
    location /blobs/ { alias $W/server/blobs/sha256/; }
  }
}
CONF
# nginx cannot listen on port 0; find a free port.
NPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed -i "s/listen 127.0.0.1:0;/listen 127.0.0.1:$NPORT;/" "$W/nginx.conf"
nginx -c "$W/nginx.conf" -p "$W/nginx" 2>/dev/null
NGINX=http://127.0.0.1:$NPORT
for _ in $(seq 50); do curl -sf -o /dev/null "$NGINX/model/$SHARD" && break; sleep 0.1; done
cat "$W"/server/blobs/sha256/*/* >/dev/null

# 2. Cold sequential read of the largest shard: a fresh mount and an empty
# node cache each time.
cold_read() {  # cold_read VAR REMOTE_ARGS...
  local var=$1
  shift
  local mp=$W/mnt-cold
  mkdir -p "$mp"
  rm -rf "$W/cache-cold"
  "$SV" "$@" mount bench/m:v1 "$mp" -q --cache-dir "$W/cache-cold" \
    ${NODE_CACHE_SIZE:+--cache-size "$NODE_CACHE_SIZE"} >/dev/null
  timed "$var" cat "$mp/$SHARD"
  "$SV" umount "$mp" -q
}
timed curl_read curl -s -o /dev/null "$NGINX/model/$SHARD"
cold_read remote_read --remote "$URL"
NODE_CACHE_SIZE=0 cold_read remote_nocache_read --remote "$URL"
cold_read local_read --store "$W/local" --remote local

# 3. Blob GET throughput: every blob of the version, 16 connections.
find "$W/server/blobs/sha256" -type f -size +100k | sed 's|.*/||' >"$W/digests"
cat >"$W/paths.lua" <<'LUA'
local paths, i = {}, 0
function init(args)
  for line in io.lines(args[2]) do paths[#paths + 1] = args[1] .. line end
end
function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
LUA
awk '{print substr($1,1,2) "/" $1}' "$W/digests" >"$W/nginx.paths"
awk '{print "sha256:" $1}' "$W/digests" >"$W/sv.paths"
wrk_rate() {  # wrk_rate URL PREFIX PATHS: bytes/s
  wrk -t2 -c16 -d8s -s "$W/paths.lua" "$1" -- "$2" "$3" | awk '
    /Transfer\/sec/ {
      v=$2; u=substr(v, length(v)-1); n=substr(v, 1, length(v)-2)+0;
      m=(u=="GB")?1e9*1.073741824:(u=="MB")?1048576:(u=="KB")?1024:1; print n*m }'
}
nginx_blobs=$(wrk_rate "$NGINX" /blobs/ "$W/nginx.paths")
t0=$(cpu_ticks "$SERVER")
sv_blobs=$(wrk_rate "$URL" /v1/volumes/bench/m/blobs/ "$W/sv.paths")
t1=$(cpu_ticks "$SERVER")
sv_blob_cpu=$(python3 -c "print(f'{($t1 - $t0) / 100 / 8:.2f}')")

# 4. Eight mounts cold-reading the whole version at once (no node cache:
# eight copies on this one disk would measure the disk, not the registry).
for i in $(seq 8); do
  mkdir -p "$W/mnt$i"
  "$SV" --remote "$URL" mount bench/m:v1 "$W/mnt$i" -q --cache-dir "$W/cache$i" \
    --cache-size 0 >/dev/null
done
c0=$(cpu_ticks "$SERVER")
t0=$(now)
readers=()
for i in $(seq 8); do
  (find "$W/mnt$i" -type f -print0 | xargs -0 cat >/dev/null) &
  readers+=($!)
done
wait "${readers[@]}"
t1=$(now)
c1=$(cpu_ticks "$SERVER")
eight=$(secs "$t0" "$t1")
eight_cpu=$(python3 -c "print(f'{($c1 - $c0) / 100 / $eight:.2f}')")
for i in $(seq 8); do "$SV" umount "$W/mnt$i" -q; done

cat <<TABLE
Model: $BYTES bytes ($(ls "$W/model" | wc -l) files); largest shard $SHARD_BYTES bytes. $(nproc) cores, loopback.

| measurement | sealvol | peer | sealvol / peer |
|---|---|---|---|
| publish (GB/s): registry vs embedded store | $(gbps "$BYTES" "$remote_pub") | $(gbps "$BYTES" "$local_pub") | $(ratio "$local_pub" "$remote_pub") |
| cold sequential read of the shard (GB/s): remote mount vs curl from nginx | $(gbps "$SHARD_BYTES" "$remote_read") | $(gbps "$SHARD_BYTES" "$curl_read") | $(ratio "$curl_read" "$remote_read") |
| cold sequential read of the shard (GB/s): remote mount without node cache vs curl from nginx | $(gbps "$SHARD_BYTES" "$remote_nocache_read") | $(gbps "$SHARD_BYTES" "$curl_read") | $(ratio "$curl_read" "$remote_nocache_read") |
| cold sequential read of the shard (GB/s): remote mount vs local-store mount | $(gbps "$SHARD_BYTES" "$remote_read") | $(gbps "$SHARD_BYTES" "$local_read") | $(ratio "$local_read" "$remote_read") |
| blob GET throughput, 16 connections (GB/s): sealvol serve vs nginx | $(python3 -c "print(f'{$sv_blobs/1e9:.3f}')") | $(python3 -c "print(f'{$nginx_blobs/1e9:.3f}')") | $(ratio "$sv_blobs" "$nginx_blobs") |
| server CPU during blob GETs (cores) | $sv_blob_cpu | | |
| 8 mounts cold-reading the version at once (aggregate GB/s) | $(gbps "$((BYTES * 8))" "$eight") | | |
| server CPU during the 8-mount read (cores) | $eight_cpu | | |
TABLE
