#!/usr/bin/env bash
# Sync benchmarks against a real S3 engine on loopback (a one-node Ceph
# cluster with the RADOS Gateway, tests/fixtures/ceph_rgw.sh), side by side
# in one run with what a user would do instead: `aws s3 cp --recursive`
# (Debian's awscli) to local disk, then `sealvol publish`.
#   bench/sync.sh [BUILD_DIR]     BENCH_SIZE=bytes (default 1 GB)
# Prints a Markdown table.
set -euo pipefail
BUILD=${1:-build}
SV=$(realpath "$BUILD/sealvol")
GEN=$(realpath "$BUILD/sealvol-genmodel")
SIZE=${BENCH_SIZE:-1000000000}
W=${BENCH_DIR:-/tmp/sealvol-bench-sync}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/bench/lib.sh"
source "$ROOT/tests/fixtures/ceph_rgw.sh"
trap 'rgw_stop' EXIT
rm -rf "$W"
mkdir -p "$W"
unset SEALVOL_REMOTE SEALVOL_TOKEN
export SEALVOL_CACHE_DIR=$W/cache
echo "starting the RADOS Gateway..." >&2
rgw_start "$W/ceph" >&2
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY
export AWS_DEFAULT_REGION=us-east-1 AWS_CONFIG_FILE=$W/none AWS_SHARED_CREDENTIALS_FILE=$W/none
AWS=/usr/bin/aws
s3() { "$AWS" --endpoint-url "$S3_ENDPOINT" "$@"; }
drop() { sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true; }

echo "generating two versions of $SIZE bytes and uploading v1..." >&2
"$GEN" "$W/v1" --size "$SIZE" --seed 31 >/dev/null
"$GEN" "$W/v2" --size "$SIZE" --seed 31 --variant 2 >/dev/null
s3 s3 mb s3://bench >/dev/null
s3 s3 cp --recursive --quiet "$W/v1" s3://bench/model/
files=$(find "$W/v1" -type f | wc -l)

# Peer: download to local disk, then publish it.
drop
timed t_aws s3 s3 cp --recursive --quiet s3://bench/model/ "$W/downloaded/"
drop
timed t_pub env SEALVOL_HOME="$W/store-peer" "$SV" publish "$W/downloaded" bench/m -q

# sealvol sync: straight from the gateway into the store.
drop
timed t_sync env SEALVOL_HOME="$W/store" "$SV" sync s3://bench/model bench/m \
  --endpoint "$S3_ENDPOINT" -q
d_sync=$(SEALVOL_HOME="$W/store" "$SV" resolve bench/m)
d_peer=$(SEALVOL_HOME="$W/store-peer" "$SV" resolve bench/m)
[ "$d_sync" = "$d_peer" ] || { echo "digests differ: $d_sync vs $d_peer" >&2; exit 1; }

# Re-sync with nothing changed, then after v2 replaced the changed shards.
timed t_same env SEALVOL_HOME="$W/store" "$SV" sync s3://bench/model bench/m \
  --endpoint "$S3_ENDPOINT" -q
s3 s3 sync --quiet "$W/v2" s3://bench/model/
changed=$(cd "$W/v2" && for f in $(find . -type f); do cmp -s "$f" "$W/v1/$f" || stat -c %s "$f"; done | python3 -c 'import sys; print(sum(int(l) for l in sys.stdin))')
drop
t0=$(now)
out=$(SEALVOL_HOME="$W/store" "$SV" sync s3://bench/model bench/m --endpoint "$S3_ENDPOINT" --json)
t_inc=$(secs "$t0" "$(now)")
dl_inc=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["downloaded_bytes"])' "$out")
drop
timed t_aws2 s3 s3 sync --quiet s3://bench/model/ "$W/downloaded/"

echo
echo "| $files files, $(python3 -c "print(f'{$SIZE/1e9:.1f}')") GB, RGW on loopback | sealvol | peer | ratio (peer/sealvol) |"
echo "|---|---|---|---|"
echo "| first sync: \`sync\` vs \`aws s3 cp --recursive\` to disk | ${t_sync}s ($(gbps "$SIZE" "$t_sync") GB/s) | ${t_aws}s ($(gbps "$SIZE" "$t_aws") GB/s) | $(ratio "$t_aws" "$t_sync") |"
echo "| first sync vs \`aws s3 cp\` + \`sealvol publish\` | ${t_sync}s | $(python3 -c "print(f'{$t_aws + $t_pub:.4f}')")s | $(ratio "$(python3 -c "print($t_aws + $t_pub)")" "$t_sync") |"
echo "| re-sync, nothing changed | ${t_same}s | | |"
echo "| re-sync after v2 changed $(python3 -c "print(f'{$changed/1e6:.0f}')") MB: \`sync\` vs \`aws s3 sync\` | ${t_inc}s (downloaded $(python3 -c "print(f'{$dl_inc/1e6:.0f}')") MB) | ${t_aws2}s | $(ratio "$t_aws2" "$t_inc") |"
