#!/usr/bin/env bash
# A registry on Ceph's RADOS Gateway + PostgreSQL vs the same registry on
# local disk + SQLite, on loopback, in one run: publish through the
# registry, and a cold sequential read of the largest shard through a fresh
# mount (empty node cache), with and without --redirect-blobs.
#   bench/scale_out.sh [BUILD_DIR]     BENCH_SIZE=bytes (default 1 GB)
# Prints a Markdown table. The gateway (one OSD on memstore), PostgreSQL,
# the registry and the client share this machine's cores.
set -euo pipefail
BUILD=${1:-build}
SV=$(realpath "$BUILD/sealvol")
GEN=$(realpath "$BUILD/sealvol-genmodel")
SIZE=${BENCH_SIZE:-1000000000}
W=${BENCH_DIR:-/tmp/sealvol-bench-scale}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/lib.sh"
source "$ROOT/tests/fixtures/ceph_rgw.sh"
source "$ROOT/tests/fixtures/postgres.sh"
SERVERS=()
cleanup() {
  for m in "$W"/mnt*; do umount -l "$m" 2>/dev/null || true; done
  for p in "${SERVERS[@]}"; do kill "$p" 2>/dev/null || true; done
  rgw_stop 2>/dev/null || true
  pg_stop 2>/dev/null || true
}
trap cleanup EXIT
rm -rf "$W"
mkdir -p "$W"
unset SEALVOL_REMOTE SEALVOL_TOKEN

echo "starting the gateway and PostgreSQL..." >&2
rgw_start "$W/ceph" >/dev/null
pg_start
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY
export AWS_DEFAULT_REGION=us-east-1 AWS_CONFIG_FILE=$W/none AWS_SHARED_CREDENTIALS_FILE=$W/none
/usr/bin/aws --endpoint-url "$S3_ENDPOINT" s3 mb s3://bench >/dev/null

echo "generating $SIZE bytes of model..." >&2
"$GEN" "$W/model" --size "$SIZE" --seed 23 >/dev/null
BYTES=$(du -sb --apparent-size "$W/model" | cut -f1)
SHARD=$(cd "$W/model" && ls -S model-*.safetensors | head -1)
SHARD_BYTES=$(stat -c %s "$W/model/$SHARD")
cat "$W"/model/* >/dev/null

serve() {  # serve NAME ARGS...: starts a registry, sets URL
  local name=$1
  shift
  "$SV" --store "$W/$name" serve --listen 127.0.0.1:0 --port-file "$W/$name.port" \
    --access-log /dev/null "$@" 2>"$W/$name.log" &
  SERVERS+=($!)
  for _ in $(seq 100); do [ -s "$W/$name.port" ] && break; sleep 0.1; done
  URL=http://127.0.0.1:$(cat "$W/$name.port")
}
cold_read() {  # cold_read VAR URL
  local var=$1 mp=$W/mnt-cold
  mkdir -p "$mp"
  rm -rf "$W/cache-cold"
  "$SV" --remote "$2" mount bench/m:v1 "$mp" -q --cache-dir "$W/cache-cold" >/dev/null
  timed "$var" cat "$mp/$SHARD"
  "$SV" umount "$mp" -q
}

DB=$(pg_createdb bench)
BACK=(--blobs s3://bench/reg --endpoint "$S3_ENDPOINT" --meta "$DB")
serve local
LOCAL=$URL
serve scaled "${BACK[@]}"
SCALED=$URL
serve redirect "${BACK[@]}" --redirect-blobs
REDIRECT=$URL

sync
timed pub_local "$SV" --remote "$LOCAL" publish "$W/model" bench/m:v1 -q --no-cache
sync
timed pub_scaled "$SV" --remote "$SCALED" publish "$W/model" bench/m:v1 -q --no-cache
timed repub_local "$SV" --remote "$LOCAL" publish "$W/model" bench/m:v2 -q --no-cache
timed repub_scaled "$SV" --remote "$SCALED" publish "$W/model" bench/m:v2 -q --no-cache
cold_read read_local "$LOCAL"
cold_read read_scaled "$SCALED"
cold_read read_redirect "$REDIRECT"
# The gateway alone: the same shard's bytes as S3 GETs of its blobs, 8 at a
# time, is the ceiling any registry on it can reach.
keys_bytes=$(/usr/bin/aws --endpoint-url "$S3_ENDPOINT" s3 ls --recursive s3://bench/reg/blobs/ | awk '{s+=$3} END {print s}')
timed gw_put /usr/bin/aws --endpoint-url "$S3_ENDPOINT" s3 cp --recursive --quiet "$W/model" s3://bench/raw/
timed gw_all /usr/bin/aws --endpoint-url "$S3_ENDPOINT" s3 cp --recursive --quiet s3://bench/reg/blobs/ "$W/gw-copy/"

cat <<TABLE
Model: $BYTES bytes ($(ls "$W/model" | wc -l) files); largest shard $SHARD_BYTES bytes. $(nproc) cores, loopback; RGW with one OSD on memstore.

| measurement | RGW + PostgreSQL | local disk + SQLite | ratio (local / scaled) |
|---|---|---|---|
| publish through the registry (GB/s) | $(gbps "$BYTES" "$pub_scaled") | $(gbps "$BYTES" "$pub_local") | $(ratio "$pub_scaled" "$pub_local") |
| re-publish, nothing new, file cache off (s) | $repub_scaled | $repub_local | $(ratio "$repub_scaled" "$repub_local") |
| cold read of the shard through a mount (GB/s) | $(gbps "$SHARD_BYTES" "$read_scaled") | $(gbps "$SHARD_BYTES" "$read_local") | $(ratio "$read_scaled" "$read_local") |
| same, --redirect-blobs (bytes from the gateway) (GB/s) | $(gbps "$SHARD_BYTES" "$read_redirect") | $(gbps "$SHARD_BYTES" "$read_local") | $(ratio "$read_redirect" "$read_local") |
| the gateway alone: aws s3 cp uploading the model files (GB/s) | $(gbps "$BYTES" "$gw_put") | | |
| the gateway alone: aws s3 cp downloading every blob ($keys_bytes bytes) (GB/s) | $(gbps "$keys_bytes" "$gw_all") | | |
TABLE
