#!/usr/bin/env bash
# The node cache across versions and mounts, prefetch, and what a corrupt
# chunk does to a live mount.
source "$(dirname "$0")/lib.sh"
export SEALVOL_CACHE_DIR=$WORK/cache
mkdir -p "$WORK/mnt"

# --- v2 after v1 fetches only what v2 adds -----------------------------------
"$GENMODEL" "$WORK/v1" --size 60000000 --seed 3 >/dev/null
"$GENMODEL" "$WORK/v2" --size 60000000 --seed 3 --variant 2 >/dev/null
sv publish "$WORK/v1" acme/m:v1 -q >/dev/null
OUT=$(sv publish "$WORK/v2" acme/m:v2 -q --json)
v2_new=$(json new_bytes)
v2_total=$(json bytes)

sv mount acme/m:v1 "$WORK/mnt" -q >/dev/null
cat "$WORK"/mnt/* >/dev/null
expect_exit 0 sv stats "$WORK/mnt" --json
v1_fetched=$(json bytes_fetched)
[ "$v1_fetched" -ge 60000000 ] && pass || fail "v1 fetched only $v1_fetched bytes"
sv umount "$WORK/mnt" -q

sv mount acme/m:v2 "$WORK/mnt" -q >/dev/null
(cd "$WORK/v2" && sha256sum ./* >"$WORK/v2.sums")
(cd "$WORK/mnt" && sha256sum --quiet -c "$WORK/v2.sums") && pass || fail "v2 reads back"
expect_exit 0 sv stats "$WORK/mnt" --json
v2_fetched=$(json bytes_fetched)
echo "v2: $v2_total bytes, $v2_new new; fetched $v2_fetched (v1 fetched $v1_fetched)"
# What v2 adds, plus its small chunk indexes; far below the whole version.
python3 -c "import sys; n,f=$v2_new,$v2_fetched; sys.exit(0 if 0.9*n <= f <= 1.1*n + (1<<20) else 1)" \
  && pass || fail "v2 fetched $v2_fetched bytes; it adds $v2_new"
[ "$(json disk_hits)" -gt 0 ] && pass || fail "no node cache hits for v2"
sv umount "$WORK/mnt" -q

# --- two mounts share one node cache while both read --------------------------
mkdir -p "$WORK/mnt1" "$WORK/mnt2"
(cd "$WORK/v1" && sha256sum ./* >"$WORK/v1.sums")
sv mount acme/m:v1 "$WORK/mnt1" --cache-dir "$WORK/shared" -q >/dev/null
sv mount acme/m:v2 "$WORK/mnt2" --cache-dir "$WORK/shared" -q >/dev/null
(cd "$WORK/mnt1" && sha256sum --quiet -c "$WORK/v1.sums") &
r1=$!
(cd "$WORK/mnt2" && sha256sum --quiet -c "$WORK/v2.sums") &
r2=$!
wait "$r1" && pass || fail "v1 read while v2 mounted on the same cache"
wait "$r2" && pass || fail "v2 read while v1 mounted on the same cache"
sv umount "$WORK/mnt1" -q
sv umount "$WORK/mnt2" -q
tmp_left=$(find "$WORK/shared" -name '.tmp-*' | wc -l)
expect_eq "no temp files left in the shared cache" "$tmp_left" "0"
# Everything both versions hold is now cached, once.
sv mount acme/m:v2 "$WORK/mnt2" --cache-dir "$WORK/shared" -q >/dev/null
cat "$WORK"/mnt2/* >/dev/null
OUT=$(sv stats "$WORK/mnt2" --json)
expect_eq "a third mount fetches nothing" "$(json fetches)" "0"
sv umount "$WORK/mnt2" -q

# --- --prefetch all hydrates the version; reads then fetch nothing ----------
expect_exit 0 sv mount acme/m:v2 "$WORK/mnt" --prefetch all --cache-dir "$WORK/cache2" -q
for _ in $(seq 1 300); do
  OUT=$(sv stats "$WORK/mnt" --json)
  [ "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["prefetch"]["done"])' <<<"$OUT")" == "True" ] && break
  sleep 0.1
done
hydrated=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["prefetch"]["hydrated_bytes"])' <<<"$OUT")
expect_eq "hydrated the whole version" "$hydrated" "$v2_total"
before=$(json fetches)
cat "$WORK"/mnt/* >/dev/null
OUT=$(sv stats "$WORK/mnt" --json)
expect_eq "nothing fetched after hydration" "$(json fetches)" "$before"
sv umount "$WORK/mnt" -q

# --- --prefetch none fetches only what is read ------------------------------
sv mount acme/m:v2 "$WORK/mnt" --prefetch none --cache-dir "$WORK/cache3" -q >/dev/null
shard=$(cd "$WORK/v2" && ls model-*.safetensors | head -1)
head -c 4096 "$WORK/mnt/$shard" >/dev/null
OUT=$(sv stats "$WORK/mnt" --json)
[ "$(json bytes_fetched)" -le $((8 << 20)) ] && pass || fail "prefetch none fetched $(json bytes_fetched)"
expect_eq "no read-ahead" "$(json prefetched_chunks)" "0"
sv umount "$WORK/mnt" -q

# --- a corrupt chunk: EIO for that read only, then repair -------------------
# Two files of random bytes, published one after the other so that the
# blobs of a.bin are known; its largest blob is a chunk.
head -c 6000000 /dev/urandom >"$WORK/a.bin"
head -c 3000000 /dev/urandom >"$WORK/b.bin"
mkdir -p "$WORK/one" "$WORK/two"
cp "$WORK/a.bin" "$WORK/one/"
cp "$WORK/a.bin" "$WORK/b.bin" "$WORK/two/"
(cd "$SEALVOL_HOME/blobs" && find . -type f | sort) >"$WORK/before"
sv publish "$WORK/one" acme/c:a --compress none -q >/dev/null
victim=$(cd "$SEALVOL_HOME/blobs" && comm -13 "$WORK/before" <(find . -type f | sort) |
  xargs ls -S | head -1)
sv publish "$WORK/two" acme/c:ab --compress none -q >/dev/null
cp "$SEALVOL_HOME/blobs/$victim" "$WORK/victim.good"
chmod u+w "$SEALVOL_HOME/blobs/$victim" 2>/dev/null
printf 'XXXX' | dd of="$SEALVOL_HOME/blobs/$victim" bs=1 seek=5000 conv=notrunc status=none

sv mount acme/c:ab "$WORK/mnt" --cache-dir "$WORK/cache4" -q >/dev/null
err=$(cat "$WORK/mnt/a.bin" 2>&1 >/dev/null)
expect_contains "corrupt chunk gives EIO" "$err" "Input/output error"
cmp -s "$WORK/mnt/b.bin" "$WORK/b.bin" && pass || fail "the other file reads fine"
OUT=$(sv stats "$WORK/mnt" --json)
[ "$(json read_errors)" -gt 0 ] && pass || fail "read_errors not counted"
log=$(json log)
expect_contains "log names the file" "$(cat "$log")" "a.bin"
expect_contains "log names the offset" "$(cat "$log")" "at offset"
expect_contains "log names the chunk" "$(cat "$log")" "sha256:"
# Nothing bad entered the node cache.
bad=$(find "$WORK/cache4/chunks" -name "$(basename "$victim")" | wc -l)
expect_eq "corrupt chunk not cached" "$bad" "0"
# Repair the store: the same mount now reads correctly.
cp "$WORK/victim.good" "$SEALVOL_HOME/blobs/$victim"
cmp -s "$WORK/mnt/a.bin" "$WORK/a.bin" && pass || fail "a.bin after repair"
sv umount "$WORK/mnt" -q

finish
