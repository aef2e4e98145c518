#!/usr/bin/env bash
# Deployments against a registry (`sealvol serve` on loopback): CI locks
# with a write token, a replica with a read-only token runs up and status,
# pins are recorded under the deployment with the token's name, and a
# rollback walks the registry's pin history.
source "$(dirname "$0")/lib.sh"
export SEALVOL_CACHE_DIR=$WORK/cache SEALVOL_STATE_DIR=$WORK/state
cd "$WORK" || exit 1
printf '%s\n' \
  "tok-ci-0123456789abcdef      ci       write:acme/*" \
  "tok-replica-0123456789abcdef replica  read:acme/*" \
  "tok-other-0123456789abcdef   other    write:other/*" >"$WORK/tokens"
start_server registry "$WORK/server" --listen 127.0.0.1:0 --tokens "$WORK/tokens" || exit 1
as() {  # as TOKEN-NAME sealvol-args...
  local token=tok-$1-0123456789abcdef
  shift
  SEALVOL_REMOTE=$URL SEALVOL_TOKEN=$token "$SEALVOL" "$@"
}
"$GENMODEL" v1 --size 20000000 --seed 6 >/dev/null
"$GENMODEL" v2 --size 20000000 --seed 6 --variant 2 >/dev/null
shard=$(cd v1 && ls model-*.safetensors | head -1)
sum() { sha256sum <"$1" | cut -d' ' -f1; }
d1=$(as ci publish v1 acme/llm:prod -q)
cat >sealvol.yaml <<YAML
deployment: chat-prod
volumes:
  - ref: acme/llm:prod
    path: models/llm
YAML

expect_exit 6 as replica lock
expect_contains "a read-only token cannot pin" "$ERR" "may not write acme/llm"
expect_exit 0 as ci lock
expect_contains "locked to v1" "$(cat sealvol.yaml)" "digest: $d1"
expect_exit 0 as replica up
expect_eq "replica serves v1" "$(sum "models/llm/$shard")" "$(sum "v1/$shard")"

d2=$(as ci publish v2 acme/llm:prod -q)
expect_exit 0 as replica status --json
expect_eq "drift seen through the registry" "$(json drift)" "true"
expect_eq "registry pin" "$(json volumes | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["registry_pin"])')" "$d1"
expect_exit 0 as ci lock
expect_exit 0 as replica up
expect_eq "replica switched to v2" "$(sum "models/llm/$shard")" "$(sum "v2/$shard")"

# The registry shows who pinned what, to readers of the volume only.
OUT=$(curl -sf -H "Authorization: Bearer tok-replica-0123456789abcdef" "$URL/v1/deployments/chat-prod")
expect_eq "history through the API" "$(json history | python3 -c 'import json,sys; print(" ".join(m["actor"] + ":" + m["reason"] for m in json.load(sys.stdin)))')" "ci:lock ci:lock"
OUT=$(curl -sf -H "Authorization: Bearer tok-other-0123456789abcdef" "$URL/v1/deployments/chat-prod")
expect_eq "another tenant sees no pins" "$(json pins)" "[]"
expect_exit 0 as replica versions acme/llm
expect_contains "versions shows the pin" "$OUT" "pinned by chat-prod:$WORK/models/llm"

expect_exit 0 as ci rollback --json
expect_eq "rollback through the registry" "$(json to)" "$d1"
expect_exit 0 as replica up
expect_eq "replica back on v1" "$(sum "models/llm/$shard")" "$(sum "v1/$shard")"
expect_exit 0 as replica down
expect_eq "down" "$(ls models)" ""
finish
