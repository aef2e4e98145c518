#!/usr/bin/env bash
# The main job on the embedded store, narrated: publish a model directory,
# tag it, change one tensor, publish again, see how little was new, mount
# it, pull it back and verify it. Uses a throwaway store under demo-work/.
set -euo pipefail
BUILD=${1:-build}
SV="$BUILD/sealvol"
GEN="$BUILD/sealvol-genmodel"
WORK=${DEMO_DIR:-demo-work}
# A mount left by an interrupted run would stop rm; detach it first.
for mp in "$WORK/mnt" $(awk -v w="$WORK/state/" 'index($2, w) {print $2}' /proc/mounts); do
  umount -l "$mp" 2>/dev/null || fusermount3 -u -z "$mp" 2>/dev/null || true
done
rm -rf "$WORK"
mkdir -p "$WORK"
trap '"$SV" umount "$WORK/mnt" --lazy -q 2>/dev/null || true
      "$SV" down "$WORK/deploy/sealvol.yaml" -q 2>/dev/null || true' EXIT
export SEALVOL_HOME="$WORK/store" SEALVOL_STATE_DIR="$WORK/state"
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*" >&2; "$@"; }

say "1. Make a sample model directory (3 files, ~200 MB of bf16 weights)"
run "$GEN" "$WORK/model-v1" --size 200000000 --seed 7
ls -l "$WORK/model-v1"

say "2. Publish it as version 1 of volume demo/tiny-llm, tagged 'prod'"
echo "   sealvol chunks every file, stores each chunk once, and names the"
echo "   whole tree by one sha256 digest. The version can never change."
D1=$(run "$SV" publish "$WORK/model-v1" demo/tiny-llm:prod)
echo "   version 1 is $D1"

say "3. Look at the version: its files, sizes and sha256s"
run "$SV" ls demo/tiny-llm:prod

say "4. Fine-tune: rewrite a few tensors and insert one mid-file, then publish v2"
run "$GEN" "$WORK/model-v2" --size 200000000 --seed 7 --variant 2 >/dev/null
run "$SV" publish "$WORK/model-v2" demo/tiny-llm:v2 --json | tee "$WORK/v2.json"
python3 - "$WORK/v2.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"   v2 is {s['bytes']/1e6:.1f} MB, but only {s['new_bytes']/1e6:.1f} MB "
      f"({100*s['new_bytes']/s['bytes']:.1f}%) were new; the rest was reused.")
PY

say "5. What changed between the two versions?"
run "$SV" diff demo/tiny-llm:prod demo/tiny-llm:v2

say "6. Promote v2 to prod, but only if prod is still v1 (compare-and-swap)"
run "$SV" tag demo/tiny-llm:v2 prod --expect "$D1" --note "promote fine-tune"
run "$SV" history demo/tiny-llm:prod

say "7. Mount prod: live at once, chunks stream in as they are read"
if [ -e /dev/fuse ]; then
  mkdir -p "$WORK/mnt"
  export SEALVOL_CACHE_DIR="$WORK/cache"
  run "$SV" mount demo/tiny-llm:prod "$WORK/mnt"
  shard=$(cd "$WORK/model-v2" && ls model-*.safetensors | head -1)
  run head -c 100000000 "$WORK/mnt/$shard" | sha256sum
  head -c 100000000 "$WORK/model-v2/$shard" | sha256sum
  echo "   the same bytes; only the chunks read were fetched:"
  run "$SV" stats "$WORK/mnt"
  run "$SV" umount "$WORK/mnt"
else
  echo "   (skipped: this machine has no /dev/fuse)"
fi

say "8. Pull prod into a fresh directory; every chunk and file is verified"
run "$SV" pull demo/tiny-llm:prod "$WORK/deployed"
run diff -r "$WORK/model-v2" "$WORK/deployed" && echo "   identical to the source tree"

say "9. Re-hash every blob of both versions in the store"
run "$SV" verify "demo/tiny-llm@$D1"
run "$SV" verify demo/tiny-llm:prod

say "10. Share it: serve the store as a registry, copy prod to a second store through it"
"$SV" --store "$WORK/store" serve --listen 127.0.0.1:0 --port-file "$WORK/port" \
  --access-log "$WORK/access.log" 2>"$WORK/serve.log" &
server=$!
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
url=http://127.0.0.1:$(cat "$WORK/port")
echo "   sealvol serve is listening on $url (loopback only: no tokens file)"
run "$SV" --store "$WORK/laptop" copy "$url::demo/tiny-llm:prod" local::
run "$SV" --remote "$url" history demo/tiny-llm:prod
kill "$server"
wait "$server" 2>/dev/null || true

say "11. Deploy: pin prod's digest in a spec, mount it, roll back to v1"
if [ -e /dev/fuse ]; then
  mkdir -p "$WORK/deploy"
  cat >"$WORK/deploy/sealvol.yaml" <<'YAML'
# what this service runs
deployment: chat-demo
volumes:
  - ref: demo/tiny-llm:prod   # the team moves prod; replicas mount the digest below
    path: models/tiny-llm
YAML
  run "$SV" lock "$WORK/deploy/sealvol.yaml"
  run cat "$WORK/deploy/sealvol.yaml"
  run "$SV" up "$WORK/deploy/sealvol.yaml"
  run "$SV" status "$WORK/deploy/sealvol.yaml"
  run "$SV" rollback "$WORK/deploy/sealvol.yaml" --to "$D1"
  run "$SV" up "$WORK/deploy/sealvol.yaml"
  run sha256sum "$WORK/deploy/models/tiny-llm/$shard" "$WORK/model-v1/$shard"
  echo "   the path now serves v1 again; prod still points at v2:"
  run "$SV" versions demo/tiny-llm
  run "$SV" down "$WORK/deploy/sealvol.yaml"
else
  echo "   (skipped: this machine has no /dev/fuse)"
fi

say "Done. The store is in $WORK/store; try: $SV --store $WORK/store versions demo/tiny-llm"
