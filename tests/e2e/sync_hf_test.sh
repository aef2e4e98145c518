#!/usr/bin/env bash
# `sealvol sync hf://…` against a test hub on loopback
# (tests/fixtures/hf_hub.py, written from the hub's public HTTP API): LFS
# files redirect to a CDN on another host, which must never see the token.
source "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures" && pwd)
HUB=$WORK/hub
export HF_TOKEN=hf_test_token SEALVOL_RETRY_FOR=2
unset HF_HOME HF_TOKEN_PATH HUGGING_FACE_HUB_TOKEN

# commit DIR-OF-REPO SHA: makes commits/SHA and returns its path.
commit() { mkdir -p "$1/commits/$2" && echo "$1/commits/$2"; }
R=$HUB/models/acme/tiny
C1=$(commit "$R" 1111111111111111111111111111111111111111)
C2=$(commit "$R" 2222222222222222222222222222222222222222)
for c in "$C1" "$C2"; do
  mkdir -p "$c/tokenizer"
  echo '{"hidden": 64}' >"$c/config.json"
  echo '# tiny' >"$c/README.md"
  head -c 3000 /dev/urandom >"$c/tokenizer/tokenizer.json"
done
cp "$C1/tokenizer/tokenizer.json" "$C2/tokenizer/tokenizer.json"
head -c 3000000 /dev/urandom >"$C1/model.safetensors"
head -c 3000000 /dev/urandom >"$C2/model.safetensors"
head -c 2000000 /dev/urandom >"$C2/extra.safetensors"
echo '{"main": "2222222222222222222222222222222222222222", "v1": "1111111111111111111111111111111111111111"}' >"$R/refs.json"
# A private repo, a gated one, a dataset, one with a tampered LFS file and
# one that redirects to a metadata address.
for r in models/acme/secret models/acme/gated datasets/acme/corpus models/acme/tampered models/acme/evil; do
  c=$(commit "$HUB/$r" 3333333333333333333333333333333333333333)
  echo '{"main": "3333333333333333333333333333333333333333"}' >"$HUB/$r/refs.json"
  echo "data of $r" >"$c/data.txt"
done
echo private >"$HUB/models/acme/secret/access"
echo gated >"$HUB/models/acme/gated/access"
head -c 5000 /dev/urandom >"$HUB/models/acme/tampered/commits/3333333333333333333333333333333333333333/tampered.safetensors"

python3 "$FIX/hf_hub.py" --root "$HUB" --port-file "$WORK/hub.port" --log "$WORK/hub.log" \
  --tamper tampered.safetensors --evil-redirect data.txt.evil >"$WORK/hub.out" 2>&1 &
HUB_PID=$!
trap 'kill $HUB_PID 2>/dev/null; cleanup_mounts; stop_servers; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do [ -s "$WORK/hub.port" ] && break; sleep 0.1; done
read -r HUB_PORT CDN_PORT <"$WORK/hub.port"
export HF_ENDPOINT=http://127.0.0.1:$HUB_PORT
# File bytes (answers to ranged GETs) the hub and CDN sent since line $1
# of the log.
sent_since() { tail -n +"$(($1 + 1))" "$WORK/hub.log" | python3 -c 'import json,sys; print(sum(e.get("sent") or 0 for e in map(json.loads, sys.stdin) if e["range"]))'; }
lines() { wc -l <"$WORK/hub.log"; }

# 1. main: the same bytes as the commit, paged listing, LFS through the CDN,
#    the token never sent to the CDN.
expect_exit 0 sv sync hf://acme/tiny acme/tiny --json
expect_eq "main digest" "$(json digest)" "$(sv digest "$C2")"
expect_eq "main revision" "$(json revision)" 2222222222222222222222222222222222222222
expect_eq "files across pages" "$(json files)" 5
cdn_auth=$(grep '"server": "cdn"' "$WORK/hub.log" | grep -c '"auth": true')
cdn_reqs=$(grep -c '"server": "cdn"' "$WORK/hub.log")
hub_auth=$(grep '"server": "hub"' "$WORK/hub.log" | grep -c '"auth": true')
expect_eq "the CDN never saw the token" "$cdn_auth" 0
if [ "$cdn_reqs" -gt 0 ] && [ "$hub_auth" -gt 0 ]; then pass; else fail "cdn $cdn_reqs requests, hub $hub_auth with token"; fi
expect_exit 0 sv versions acme/tiny --json
expect_contains "provenance uri" "$OUT" '"uri": "hf://acme/tiny@main"'
expect_contains "provenance commit" "$OUT" '"revision": "2222222222222222222222222222222222222222"'
if [[ "$OUT" == *hf_test_token* ]]; then fail "the token is in the annotations"; else pass; fi

# 2. A revision pin is honoured.
expect_exit 0 sv sync hf://acme/tiny@v1 acme/tiny:v1 --json
expect_eq "v1 digest" "$(json digest)" "$(sv digest "$C1")"
expect_eq "v1 revision" "$(json revision)" 1111111111111111111111111111111111111111

# 3. Incremental: moving a tag from v1 to main downloads only what changed
#    (the new model and the extra file), counted by the servers themselves.
expect_exit 0 sv sync hf://acme/tiny@v1 acme/tiny:moving
before=$(lines)
expect_exit 0 sv sync hf://acme/tiny@main acme/tiny:moving --json
expect_eq "incremental digest" "$(json digest)" "$(sv digest "$C2")"
expect_eq "incremental downloaded" "$(json downloaded_bytes)" 5000000
expect_eq "servers sent only the changed files" "$(sent_since "$before")" 5000000
expect_eq "unchanged files" "$(json unchanged_files)" 3

# 4. A tampered LFS file fails the sync, naming it; nothing is committed.
expect_exit 4 sv sync hf://acme/tampered acme/tampered
expect_contains "tampered file named" "$ERR" "'tampered.safetensors'"
expect_contains "tampered states" "$ERR" "the source states sha256:"
expect_exit 3 sv resolve acme/tampered

# 5. Private and gated repos, missing ones and missing revisions.
expect_exit 6 env -u HF_TOKEN "$SEALVOL" sync hf://acme/secret acme/secret
expect_contains "private needs a token" "$ERR" "set HF_TOKEN"
expect_exit 6 env HF_TOKEN=hf_wrong "$SEALVOL" sync hf://acme/secret acme/secret
expect_contains "wrong token" "$ERR" "HTTP 401"
if [[ "$ERR" == *hf_wrong* ]]; then fail "the token is in the error"; else pass; fi
mkdir -p "$WORK/home/.cache/huggingface"
echo hf_test_token >"$WORK/home/.cache/huggingface/token"
expect_exit 0 env -u HF_TOKEN HOME="$WORK/home" "$SEALVOL" sync hf://acme/secret acme/secret
expect_exit 0 sv cat acme/secret data.txt
expect_eq "private repo with the token file" "$OUT" "data of models/acme/secret"
expect_exit 6 sv sync hf://acme/gated acme/gated
expect_contains "gated" "$ERR" "accept its conditions"
expect_exit 6 sv sync hf://acme/nope acme/nope
expect_exit 3 sv sync hf://acme/tiny@no-such-branch acme/tiny:x
expect_contains "missing revision" "$ERR" "Invalid rev id"

# 6. Datasets.
expect_exit 0 sv sync hf://datasets/acme/corpus acme/corpus
expect_exit 0 sv cat acme/corpus data.txt
expect_eq "dataset" "$OUT" "data of datasets/acme/corpus"

# 7. A redirect to a metadata address is refused.
mv "$HUB/models/acme/evil/commits/3333333333333333333333333333333333333333/data.txt" \
  "$HUB/models/acme/evil/commits/3333333333333333333333333333333333333333/data.txt.evil"
expect_exit 6 sv sync hf://acme/evil acme/evil
expect_contains "metadata redirect refused" "$ERR" "refusing a redirect to 169.254.169.254"
expect_exit 3 sv resolve acme/evil
finish
