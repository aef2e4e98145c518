#!/usr/bin/env bash
# Deployment benchmarks on the embedded store: how long a node takes to
# serve a new version with `sealvol up` (lazy mount + atomic switch),
# side by side in one run with what a user would do instead: pull the whole
# new version into a directory and then swap it in.
#   bench/deploy.sh [BUILD_DIR]     BENCH_SIZE=bytes (default 1 GB)
# Prints a Markdown table.
set -euo pipefail
BUILD=${1:-build}
SV=$(realpath "$BUILD/sealvol")
GEN=$(realpath "$BUILD/sealvol-genmodel")
SIZE=${BENCH_SIZE:-1000000000}
W=${BENCH_DIR:-/tmp/sealvol-bench-deploy}
cleanup() {
  for m in $(awk -v w="$W/" 'index($2, w) {print $2}' /proc/mounts); do
    umount -l "$m" 2>/dev/null || true
  done
}
trap cleanup EXIT
cleanup
rm -rf "$W"
mkdir -p "$W"
unset SEALVOL_REMOTE SEALVOL_TOKEN
export SEALVOL_HOME=$W/store SEALVOL_CACHE_DIR=$W/cache SEALVOL_STATE_DIR=$W/state
source "$(dirname "$0")/lib.sh"

echo "generating two versions of $SIZE bytes..." >&2
"$GEN" "$W/v1" --size "$SIZE" --seed 23 >/dev/null
"$GEN" "$W/v2" --size "$SIZE" --seed 23 --variant 2 >/dev/null
"$SV" publish "$W/v1" bench/llm:prod -q >/dev/null
cat >"$W/sealvol.yaml" <<YAML
deployment: bench
volumes:
  - ref: bench/llm:prod
    path: $W/models/llm
YAML
cd "$W"
drop() { sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true; }

drop
timed t_lock1 "$SV" lock -q
timed t_up1 "$SV" up -q
timed t_first1 cat "$W/models/llm/config.json"
shard=$(cd "$W/v1" && ls model-*.safetensors | head -1)
timed t_read1 cat "$W/models/llm/$shard"   # the node now serves v1, cached
d1=$("$SV" resolve bench/llm:prod)
d2=$("$SV" publish "$W/v2" bench/llm:prod -q)
added=$("$SV" lock --json -q | python3 -c 'import json,sys; print(json.load(sys.stdin)["changes"][0]["added_bytes"])')
drop
timed t_switch "$SV" up -q
timed t_first2 cat "$W/models/llm/config.json"
timed t_read2 cat "$W/models/llm/$shard"

# The alternative: download the whole new version, then swap it in.
drop
timed t_pull "$SV" pull bench/llm:prod "$W/pulled" -q

# Roll back: v1's chunks are in the node cache.
timed t_rb "$SV" rollback -q
drop
timed t_rbup "$SV" up -q
timed t_rbread cat "$W/models/llm/$shard"

# --warm: a node serving v1 (only v1 cached) switches to v2, fetching the
# files v2 changes before the path moves.
"$SV" down -q
rm -rf "$W/cache"
"$SV" up -q
cat "$W/models/llm/$shard" >/dev/null
"$SV" rollback --to "$d2" -q >/dev/null
drop
timed t_warm "$SV" up --warm -q
timed t_warmread cat "$W/models/llm/$shard"
"$SV" down -q

echo
echo "| step | seconds |"
echo "|---|---|"
echo "| lock (tag → digest, $("$SV" versions bench/llm | wc -l) versions) | $t_lock1 |"
echo "| up, first version, cold: path live | $t_up1 |"
echo "| first file read after up (config.json) | $t_first1 |"
echo "| whole $shard read (cold: fetched, verified, cached) | $t_read1 |"
echo "| up, switch to v2 (v2 adds $(python3 -c "print(f'{$added/1e6:.0f}')") MB): path live | $t_switch |"
echo "| first file read after the switch | $t_first2 |"
echo "| whole shard read after the switch (fetches only what v2 adds) | $t_read2 |"
echo "| peer: pull all of v2 into a directory before swapping | $t_pull |"
echo "| rollback (rewrite spec, record pin) | $t_rb |"
echo "| up after rollback: path live | $t_rbup |"
echo "| whole shard read after rollback (from the node cache) | $t_rbread |"
echo "| up --warm from v1 to v2 (reads v2's changed files before switching) | $t_warm |"
echo "| whole shard read after a warm switch | $t_warmread |"
echo
echo "serving v2 with up vs pull-then-swap: $(ratio "$t_pull" "$t_switch")x sooner" \
     "($(ratio "$t_pull" "$(python3 -c "print($t_switch + $t_read2)")")x including a full read of the shard)"
