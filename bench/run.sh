#!/usr/bin/env bash
# Whole-command benchmarks: sealvol side by side with the peers a user would
# pick instead (casync, restic), on the same synthetic model in one run.
#   bench/run.sh [BUILD_DIR]      BENCH_SIZE=bytes (default 2.2 GB)
# Prints a Markdown table of throughputs, stored bytes and ratios. The page
# cache is warm for every tool (each source tree is read once first), and
# `sync` runs before each timed command so no tool pays for another's dirty
# pages. sealvol makes what it writes durable (syncfs) before it finishes;
# casync and restic are timed as they run by default.
set -euo pipefail
BUILD=${1:-build}
SV=$(realpath "$BUILD/sealvol")
GEN=$(realpath "$BUILD/sealvol-genmodel")
SIZE=${BENCH_SIZE:-2200000000}
W=${BENCH_DIR:-/tmp/sealvol-bench}
rm -rf "$W"
mkdir -p "$W"
export RESTIC_PASSWORD=bench RESTIC_CACHE_DIR="$W/restic-cache"

source "$(dirname "$0")/lib.sh"
du_b() { du -sb "$1" | cut -f1; }
# time_cmd VAR CMD...: runs CMD, stores its wall seconds in VAR.
time_cmd() {
  local var=$1
  shift
  local t0 t1
  sync  # nobody pays for another command's dirty pages
  t0=$(now)
  "$@" >"$W/last.out" 2>"$W/last.err" || { cat "$W/last.err" >&2; exit 1; }
  t1=$(now)
  printf -v "$var" '%s' "$(secs "$t0" "$t1")"
}

echo "generating $SIZE bytes of bf16 model, v1 and v2..." >&2
"$GEN" "$W/v1" --size "$SIZE" --seed 11 >/dev/null
"$GEN" "$W/v2" --size "$SIZE" --seed 11 --variant 2 >/dev/null
cat "$W"/v1/* "$W"/v2/* >/dev/null
BYTES=$(du -sb --apparent-size "$W/v1" | cut -f1)
# The ideal new data in v2: bytes of tensors that differ (from the headers).
IDEAL=$(python3 - "$W/v1" "$W/v2" <<'PY'
import json, struct, sys, glob, os
def tensors(d):
    out = {}
    for p in sorted(glob.glob(d + "/*.safetensors")):
        b = open(p, "rb").read()
        n = struct.unpack("<Q", b[:8])[0]
        h = json.loads(b[8:8 + n])
        for k, v in h.items():
            if k != "__metadata__":
                s, e = v["data_offsets"]
                out[k] = b[8 + n + s:8 + n + e]
    return out
a, b = tensors(sys.argv[1]), tensors(sys.argv[2])
print(sum(len(v) for k, v in b.items() if a.get(k) != v))
PY
)

echo "sealvol publish v1..." >&2
time_cmd T_SV_PUB env SEALVOL_HOME="$W/sv" "$SV" publish "$W/v1" bench/m:v1 --json -q
SV_STORED=$(du_b "$W/sv/blobs")
time_cmd T_SV_PUB_RAW env SEALVOL_HOME="$W/sv-raw" "$SV" publish "$W/v1" bench/m:v1 --compress none -q
time_cmd T_SV_REPUB env SEALVOL_HOME="$W/sv" "$SV" publish "$W/v1" bench/m:v1 -q
time_cmd T_SV_DIGEST "$SV" digest "$W/v1"
time_cmd T_SV_PUB2 env SEALVOL_HOME="$W/sv" "$SV" publish "$W/v2" bench/m:v2 --json -q
SV_NEW2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["new_bytes"])' "$W/last.out")
SV_STORED2=$(( $(du_b "$W/sv/blobs") - SV_STORED ))
time_cmd T_SV_PULL env SEALVOL_HOME="$W/sv" "$SV" pull bench/m:v1 "$W/sv-out" -q
cmp -s "$W/v1/config.json" "$W/sv-out/config.json"

echo "casync make/extract..." >&2
mkdir -p "$W/ca"
time_cmd T_CA_MAKE casync make --store="$W/ca/store" "$W/ca/v1.caidx" "$W/v1"
CA_STORED=$(du_b "$W/ca/store")
time_cmd T_CA_MAKE2 casync make --store="$W/ca/store" "$W/ca/v2.caidx" "$W/v2"
CA_NEW2=$(( $(du_b "$W/ca/store") - CA_STORED ))
time_cmd T_CA_EXTRACT casync extract --store="$W/ca/store" "$W/ca/v1.caidx" "$W/ca-out"

echo "restic backup..." >&2
restic init --repo "$W/restic" >/dev/null 2>&1
time_cmd T_RS_BACKUP restic backup --repo "$W/restic" "$W/v1"
RS_STORED=$(du_b "$W/restic")
time_cmd T_RS_BACKUP2 restic backup --repo "$W/restic" "$W/v2"
RS_NEW2=$(( $(du_b "$W/restic") - RS_STORED ))

cat <<TABLE
| measurement | sealvol | casync | restic | sealvol ÷ casync |
|---|---|---|---|---|
| ingest v1, GB/s ($((BYTES / 1000000)) MB) | $(gbps $BYTES $T_SV_PUB) | $(gbps $BYTES $T_CA_MAKE) | $(gbps $BYTES $T_RS_BACKUP) | $(ratio $T_CA_MAKE $T_SV_PUB)× |
| ingest v1 without compression, GB/s | $(gbps $BYTES $T_SV_PUB_RAW) | | | $(ratio $T_CA_MAKE $T_SV_PUB_RAW)× |
| stored bytes for v1, MB | $((SV_STORED / 1000000)) | $((CA_STORED / 1000000)) | $((RS_STORED / 1000000)) | |
| re-publish unchanged v1, GB/s | $(gbps $BYTES $T_SV_REPUB) | | | |
| digest only (no store), GB/s | $(gbps $BYTES $T_SV_DIGEST) | | | |
| ingest v2, GB/s | $(gbps $BYTES $T_SV_PUB2) | $(gbps $BYTES $T_CA_MAKE2) | $(gbps $BYTES $T_RS_BACKUP2) | $(ratio $T_CA_MAKE2 $T_SV_PUB2)× |
| v2 new chunk bytes, MB (ideal $((IDEAL / 1000000))) | $((SV_NEW2 / 1000000)) | | | |
| v2 stored bytes, MB | $((SV_STORED2 / 1000000)) | $((CA_NEW2 / 1000000)) | $((RS_NEW2 / 1000000)) | |
| pull / extract v1, GB/s | $(gbps $BYTES $T_SV_PULL) | $(gbps $BYTES $T_CA_EXTRACT) | | $(ratio $T_CA_EXTRACT $T_SV_PULL)× |
TABLE
echo "(seconds: sv publish $T_SV_PUB, raw $T_SV_PUB_RAW, republish $T_SV_REPUB, v2 $T_SV_PUB2, pull $T_SV_PULL; casync make $T_CA_MAKE, v2 $T_CA_MAKE2, extract $T_CA_EXTRACT; restic $T_RS_BACKUP, v2 $T_RS_BACKUP2)"
rm -rf "$W"
