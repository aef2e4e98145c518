#!/usr/bin/env bash
# Deployments on the embedded store: lock pins tags, a moved tag changes
# nothing until lock; up switches a path atomically while a reader keeps the
# old bytes; rollback walks back; gc keeps pinned versions; bad specs are
# refused with their line and change nothing.
source "$(dirname "$0")/lib.sh"
export SEALVOL_CACHE_DIR=$WORK/cache SEALVOL_STATE_DIR=$WORK/state
cd "$WORK" || exit 1
"$GENMODEL" v1 --size 30000000 --seed 3 >/dev/null
"$GENMODEL" v2 --size 30000000 --seed 3 --variant 2 >/dev/null
"$GENMODEL" v3 --size 30000000 --seed 4 >/dev/null
"$GENMODEL" t1 --size 3000000 --seed 5 >/dev/null
shard=$(cd v1 && ls model-*.safetensors | head -1)
sum() { sha256sum <"$1" | cut -d' ' -f1; }
want1=$(sum "v1/$shard") want2=$(sum "v2/$shard") want3=$(sum "v3/$shard")
d1=$(sv publish v1 acme/llm:prod -q)
sv publish t1 acme/tok:v1 -q >/dev/null
tok=$(sv resolve acme/tok:v1)
cat >sealvol.yaml <<YAML
# chat, production
deployment: chat-prod
volumes:
  - ref: acme/llm:prod    # the team follows prod
    path: models/llm
  # pinned by hand
  - ref: acme/tok@$tok
    path: models/tok
YAML
mounts() { grep -c " $WORK/state/" /proc/mounts; }

# --- unpinned: up refuses and mounts nothing; --resolve would ---------------
expect_exit 2 sv up
expect_contains "unpinned names the line" "$ERR" "sealvol.yaml:4: acme/llm:prod"
expect_eq "nothing mounted" "$(mounts)" "0"
expect_exit 0 sv up --resolve --json
expect_eq "--resolve mounts the tag's version" "$(sum "models/llm/$shard")" "$want1"
expect_contains "--resolve does not pin" "$(cat sealvol.yaml)" "  - ref: acme/llm:prod    # the team follows prod
    path: models/llm"
expect_exit 0 sv down
for _ in $(seq 1 100); do [ "$(mounts)" == "0" ] && break; sleep 0.1; done

# --- lock writes the digest, keeps comments, records the pin ---------------
expect_exit 0 sv lock --json
expect_eq "lock reports the change" "$(json changes | python3 -c 'import json,sys; c=json.load(sys.stdin); print(len(c), c[0]["to"])')" "1 $d1"
expect_contains "digest written under ref" "$(cat sealvol.yaml)" "  - ref: acme/llm:prod    # the team follows prod
    digest: $d1
    path: models/llm
  # pinned by hand"
expect_exit 0 sv lock --check

expect_exit 0 sv up --json
expect_eq "llm mounted" "$(sum "models/llm/$shard")" "$want1"
expect_eq "tok mounted" "$(sum models/tok/tokenizer.json)" "$(sum t1/tokenizer.json)"
expect_eq "one mount per digest" "$(mounts)" "2"

# --- the tag moves: the pinned deployment does not -------------------------
d2=$(sv publish v2 acme/llm:prod -q)
expect_exit 0 sv up
expect_eq "still the pinned bytes" "$(sum "models/llm/$shard")" "$want1"
expect_exit 0 sv status --json
expect_eq "drift reported" "$(json drift)" "true"
expect_eq "tag now" "$(json volumes | python3 -c 'import json,sys; v=json.load(sys.stdin)[0]; print(v["tag_now"], v["mounted"])')" "$d2 $d1"
expect_exit 5 sv lock --check
expect_contains "check says why" "$ERR" "not locked"
expect_contains "check leaves the spec" "$(cat sealvol.yaml)" "digest: $d1"

# --- lock + up switch; an open reader keeps the old version ----------------
expect_exit 0 sv lock
expect_contains "lock counts added bytes" "$OUT" "adds"
python3 - "models/llm/$shard" "$WORK/go" >"$WORK/reader.out" <<'PY' &
import hashlib, os, sys, time
f = open(sys.argv[1], 'rb')
h = hashlib.sha256(f.read(1 << 20))
open(sys.argv[2] + '.opened', 'w').close()
while not os.path.exists(sys.argv[2]):
    time.sleep(0.02)
for b in iter(lambda: f.read(1 << 20), b''):
    h.update(b)
print(h.hexdigest())
PY
reader=$!
for _ in $(seq 1 600); do [ -e "$WORK/go.opened" ] && break; sleep 0.05; done
# Watch the path while up switches it: it must always resolve to a whole
# version (config.json readable), never missing.
( while [ ! -e "$WORK/stop" ]; do
    [ -r models/llm/config.json ] || echo missing >>"$WORK/gaps"
  done ) &
watcher=$!
expect_exit 0 sv up --warm --json
touch "$WORK/stop"
wait $watcher
expect_eq "path never missing during the switch" "$(cat "$WORK/gaps" 2>/dev/null | wc -l)" "0"
expect_eq "new opens see the new version" "$(sum "models/llm/$shard")" "$want2"
touch "$WORK/go"
wait $reader
expect_eq "the open reader kept the old bytes" "$(cat "$WORK/reader.out")" "$want1"
expect_eq "warm fetched the new files" "$(json volumes | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["warmed_bytes"] > 0)')" "True"
for _ in $(seq 1 100); do [ "$(mounts)" == "2" ] && break; sleep 0.1; done
expect_eq "old mount gone once closed" "$(mounts)" "2"

# --- versions shows the pin; gc keeps pinned and tagged versions -----------
expect_exit 0 sv versions acme/llm
expect_contains "versions shows the pinning deployment" "$OUT" "pinned by chat-prod:$WORK/models/llm"
expect_exit 0 sv gc --grace 0
expect_exit 0 sv verify "acme/llm@$d1"
expect_exit 0 sv verify "acme/llm@$d2"

# --- rollback walks back two steps -----------------------------------------
d3=$(sv publish v3 acme/llm:prod -q)
expect_exit 0 sv lock
expect_exit 0 sv up
expect_eq "third version up" "$(sum "models/llm/$shard")" "$want3"
expect_exit 0 sv rollback acme/llm --json
expect_eq "rollback 1 goes to v2" "$(json to)" "$d2"
expect_exit 0 sv up
expect_eq "v2 bytes back" "$(sum "models/llm/$shard")" "$want2"
expect_exit 0 sv rollback sealvol.yaml models/llm --json
expect_eq "rollback 2 goes to v1" "$(json to)" "$d1"
expect_exit 0 sv up
expect_eq "v1 bytes back" "$(sum "models/llm/$shard")" "$want1"
expect_exit 3 sv rollback acme/llm
expect_contains "nothing earlier" "$ERR" "no earlier pin"
expect_exit 3 sv rollback acme/llm --to "$tok"
expect_contains "--to must be a version of the volume" "$ERR" "is not a version of acme/llm"
expect_exit 0 sv rollback acme/llm --to "$d3"
expect_contains "spec follows --to" "$(cat sealvol.yaml)" "digest: $d3"
expect_exit 2 sv rollback
expect_contains "which volume" "$ERR" "name the volume"

# --- bad specs: a clear error with the line; nothing mounted or rewritten --
before_mounts=$(mounts)
bad() {  # bad NAME WANT-IN-STDERR CODE: the spec text on stdin
  cat >"$WORK/$1.yaml"
  local sum_before
  sum_before=$(sum "$WORK/$1.yaml")
  for cmd in lock up; do
    expect_exit "$3" sv "$cmd" "$WORK/$1.yaml"
    expect_contains "$1 ($cmd)" "$ERR" "$2"
  done
  expect_eq "$1 left unchanged" "$(sum "$WORK/$1.yaml")" "$sum_before"
}
bad unknown_key "unknown_key.yaml:4: volumes[0].size: unknown key" 2 <<YAML
deployment: x
volumes:
  - ref: acme/llm:prod
    size: 3
    path: /srv/x
YAML
bad bad_ref "bad_ref.yaml:3: volumes[0].ref: bad volume name" 2 <<YAML
deployment: x
volumes:
  - ref: ACME/llm:prod
    path: /srv/x
YAML
bad same_path "same_path.yaml:6: volumes[1].path: /srv/x is already used at line 4" 2 <<YAML
deployment: x
volumes:
  - ref: acme/llm:prod
    path: /srv/x
  - ref: acme/tok:v1
    path: /srv/x
YAML
bad yaml_syntax "yaml_syntax.yaml:4: YAML" 2 <<YAML
deployment: x
volumes:
  - ref: [acme
YAML
bad foreign_digest "foreign_digest.yaml:3: $tok is not a version of acme/llm" 3 <<YAML
deployment: x
volumes:
  - ref: acme/llm@$tok
    path: $WORK/srv/x
YAML
expect_eq "bad specs mounted nothing" "$(mounts)" "$before_mounts"
mkdir -p "$WORK/srv/taken"
cat >"$WORK/taken.yaml" <<YAML
deployment: taken
volumes:
  - ref: acme/llm@$d1
    path: srv/taken
YAML
expect_exit 5 sv up "$WORK/taken.yaml"
expect_contains "a real directory is not replaced" "$ERR" "taken.yaml:3: $WORK/srv/taken exists and is not a symlink"
expect_eq "refused up mounted nothing" "$(mounts)" "$before_mounts"

# --- down removes the paths and the mounts; pins stay ----------------------
expect_exit 0 sv down
expect_eq "paths gone" "$(ls models)" ""
for _ in $(seq 1 100); do [ "$(mounts)" == "0" ] && break; sleep 0.1; done
expect_eq "mounts gone" "$(mounts)" "0"
expect_exit 0 sv versions acme/llm --json
expect_contains "pins stay after down" "$OUT" "chat-prod:$WORK/models/llm"
finish
