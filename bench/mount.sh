#!/usr/bin/env bash
# Mount benchmarks: sealvol's lazy FUSE mount side by side with casync's
# (the peer that also mounts a chunked store lazily) and with plain reads of
# the local files, on the same synthetic model in one run.
#   bench/mount.sh [BUILD_DIR]     BENCH_SIZE=bytes (default 2.2 GB)
# Prints a Markdown table. "Cold" means the mount's own caches are empty (a
# fresh mount, a fresh node cache); the stores' files are in the page cache
# for every tool, as they would be on a registry host.
set -euo pipefail
BUILD=${1:-build}
SV=$(realpath "$BUILD/sealvol")
GEN=$(realpath "$BUILD/sealvol-genmodel")
SIZE=${BENCH_SIZE:-2200000000}
W=${BENCH_DIR:-/tmp/sealvol-bench-mount}
umount -l "$W/mnt" 2>/dev/null || true
rm -rf "$W"
mkdir -p "$W/mnt"
export SEALVOL_HOME="$W/sv"

source "$(dirname "$0")/lib.sh"
read_all() { find "$1" -type f -print0 | sort -z | xargs -0 cat >/dev/null; }
wait_mounted() {
  for _ in $(seq 1 200); do
    grep -q " $1 " /proc/mounts && return 0
    sleep 0.05
  done
  echo "not mounted: $1" >&2
  exit 1
}

echo "generating $SIZE bytes of model and a 10,000-file tree..." >&2
"$GEN" "$W/v1" --size "$SIZE" --seed 11 >/dev/null
python3 - "$W/many" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(100):
    os.makedirs(f"{root}/d{d:03d}")
    for f in range(100):
        with open(f"{root}/d{d:03d}/f{f:03d}.txt", "w") as fh:
            fh.write(f"{d} {f}\n" * (1 + f))
PY
BYTES=$(du -sb --apparent-size "$W/v1" | cut -f1)
"$SV" publish "$W/v1" bench/m:v1 -q >/dev/null
"$SV" publish "$W/many" bench/many:v1 -q >/dev/null
cat "$W"/v1/* "$W"/sv/blobs/sha256/*/* >/dev/null 2>&1 || true
SHARD=$(cd "$W/v1" && ls -S model-*.safetensors | head -1)

# 1. Mount latency for 10,000 files: median of 5.
ms=()
for _ in 1 2 3 4 5; do
  timed t "$SV" mount bench/many:v1 "$W/mnt" --cache-dir "$W/cache-many" -q
  ms+=("$t")
  "$SV" umount "$W/mnt" -q
done
T_MOUNT=$(printf '%s\n' "${ms[@]}" | sort -n | sed -n 3p)

# 2. Cold sequential read of the whole version, then warm re-read.
"$SV" mount bench/m:v1 "$W/mnt" --cache-dir "$W/cache1" -q >/dev/null
timed T_SV_COLD read_all "$W/mnt"
timed T_SV_WARM read_all "$W/mnt"
"$SV" umount "$W/mnt" -q
"$SV" mount bench/m:v1 "$W/mnt" --cache-size 0 -q >/dev/null
timed T_SV_COLD_NC read_all "$W/mnt"
"$SV" umount "$W/mnt" -q
# The same again from a full node cache (a node that has had this version).
"$SV" mount bench/m:v1 "$W/mnt" --cache-dir "$W/cache1" -q >/dev/null
timed T_SV_NODE read_all "$W/mnt"
"$SV" umount "$W/mnt" -q
timed T_CAT_LOCAL read_all "$W/v1"

# 3. Header + one tensor (the largest) from a fresh mount vs a full pull.
cat >"$W/one_tensor.py" <<'PY'
import json, struct, sys
f = open(sys.argv[1], "rb")
n = struct.unpack("<Q", f.read(8))[0]
h = json.loads(f.read(n))
name, t = max(((k, v) for k, v in h.items() if k != "__metadata__"),
              key=lambda kv: kv[1]["data_offsets"][1] - kv[1]["data_offsets"][0])
s, e = t["data_offsets"]
f.seek(8 + n + s)
assert len(f.read(e - s)) == e - s
PY
"$SV" mount bench/m:v1 "$W/mnt" --cache-dir "$W/cache2" -q >/dev/null
timed T_SV_TENSOR python3 "$W/one_tensor.py" "$W/mnt/$SHARD"
"$SV" umount "$W/mnt" -q
timed T_SV_PULL "$SV" pull bench/m:v1 "$W/pulled" -q

# 4. casync: make a store with the same data, mount its index, read it all.
mkdir -p "$W/ca"
casync make --store="$W/ca/store" "$W/ca/v1.caidx" "$W/v1" >/dev/null
cat "$W"/ca/store/*/* >/dev/null 2>&1 || true
casync mount --store="$W/ca/store" "$W/ca/v1.caidx" "$W/mnt" &
CA=$!
wait_mounted "$W/mnt"
timed T_CA_COLD read_all "$W/mnt"
timed T_CA_WARM read_all "$W/mnt"
umount "$W/mnt"
wait "$CA" 2>/dev/null || true

cat <<TABLE
| measurement | sealvol | casync mount | local files | sealvol ÷ peer |
|---|---|---|---|---|
| mount 10,000 files, ms (median of 5, until live) | $(python3 -c "print(f'{$T_MOUNT*1000:.0f}')") | | | |
| cold sequential read, GB/s ($((BYTES / 1000000)) MB) | $(gbps $BYTES $T_SV_COLD) | $(gbps $BYTES $T_CA_COLD) | | $(ratio $T_CA_COLD $T_SV_COLD)× casync |
| cold read, no node cache (\`--cache-size 0\`), GB/s | $(gbps $BYTES $T_SV_COLD_NC) | | | $(ratio $T_CA_COLD $T_SV_COLD_NC)× casync |
| read from a full node cache (fresh mount), GB/s | $(gbps $BYTES $T_SV_NODE) | | | |
| warm re-read, GB/s | $(gbps $BYTES $T_SV_WARM) | $(gbps $BYTES $T_CA_WARM) | $(gbps $BYTES $T_CAT_LOCAL) (cat, page cache) | $(ratio $T_CAT_LOCAL $T_SV_WARM)× cat |
| header + largest tensor on a fresh mount vs full pull, s | $T_SV_TENSOR | | $T_SV_PULL (pull) | $(ratio $T_SV_PULL $T_SV_TENSOR)× faster |
TABLE
echo "(seconds: mount $T_MOUNT; sv cold $T_SV_COLD, no node cache $T_SV_COLD_NC, node cache $T_SV_NODE, warm $T_SV_WARM; casync cold $T_CA_COLD, warm $T_CA_WARM; cat $T_CAT_LOCAL; tensor $T_SV_TENSOR, pull $T_SV_PULL)"
rm -rf "$W"
