#!/usr/bin/env bash
# `sealvol sync --on-server`: the registry runs the sync with its own
# credentials (the test hub's token is in the server's environment only),
# reports progress, and can cancel. The client never sees the token.
source "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures" && pwd)
HUB=$WORK/hub
unset HF_TOKEN HF_HOME HF_TOKEN_PATH HUGGING_FACE_HUB_TOKEN HF_ENDPOINT
commit() { mkdir -p "$1/commits/$2" && echo "$1/commits/$2"; }
SHA=4444444444444444444444444444444444444444
C=$(commit "$HUB/models/acme/private" $SHA)
echo '{"main": "'$SHA'"}' >"$HUB/models/acme/private/refs.json"
echo private >"$HUB/models/acme/private/access"
echo '{"hidden": 8}' >"$C/config.json"
head -c 3000000 /dev/urandom >"$C/model.safetensors"
S=$(commit "$HUB/models/acme/slow" $SHA)
echo '{"main": "'$SHA'"}' >"$HUB/models/acme/slow/refs.json"
for i in $(seq 1 64); do head -c 2000 /dev/urandom >"$S/f$i.bin"; done
T=$(commit "$HUB/models/acme/tampered" $SHA)
echo '{"main": "'$SHA'"}' >"$HUB/models/acme/tampered/refs.json"
head -c 5000 /dev/urandom >"$T/tampered.safetensors"

python3 "$FIX/hf_hub.py" --root "$HUB" --port-file "$WORK/hub.port" --log "$WORK/hub.log" \
  --tamper tampered.safetensors --delay-ms 500 >"$WORK/hub.out" 2>&1 &
HUB_PID=$!
trap 'kill $HUB_PID 2>/dev/null; cleanup_mounts; stop_servers; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do [ -s "$WORK/hub.port" ] && break; sleep 0.1; done
read -r HUB_PORT _ <"$WORK/hub.port"

cat >"$WORK/tokens" <<'TOK'
tok-ci-0123456789abcdef ci write:acme/*
tok-reader-0123456789abcdef reader read:acme/*
tok-other-0123456789abcdef other write:other/*
TOK
HF_ENDPOINT=http://127.0.0.1:$HUB_PORT HF_TOKEN=hf_test_token \
  start_server srv "$WORK/srv-store" --tokens "$WORK/tokens" --listen 127.0.0.1:0 \
  || { fail "server did not start"; finish; exit 1; }
export SEALVOL_REMOTE=$URL SEALVOL_TOKEN=tok-ci-0123456789abcdef

# 1. A private repo, synced by the server with its own token; the client
#    has none. The version is the repo's bytes, with provenance.
expect_exit 0 sv sync --on-server hf://acme/private acme/private:main
expect_eq "server-side digest" "$OUT" "$(SEALVOL_REMOTE= sv digest "$C")"
expect_exit 0 sv versions acme/private --json
expect_contains "provenance" "$OUT" '"uri": "hf://acme/private@main"'
expect_contains "ran on the server" "$OUT" '"via": "server"'
expect_contains "the token's name is the user" "$OUT" '"user": "ci"'
if grep -q hf_test_token "$WORK/srv.log"; then fail "the hub token is in the server log"; else pass; fi

# 2. --detach, then watch it with sync-jobs; --json gives the job.
expect_exit 0 sv sync --on-server --detach hf://acme/private acme/private:detached
id=$OUT
for _ in $(seq 100); do
  state=$(sv sync-jobs "$id" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')
  [ "$state" = succeeded ] && break
  sleep 0.1
done
expect_eq "detached job finished" "$state" succeeded
expect_exit 0 sv sync-jobs
expect_contains "listed" "$OUT" "$id  succeeded  hf://acme/private -> acme/private:detached"

# 3. A failing job fails the command with a local sync's exit code.
expect_exit 4 sv sync --on-server hf://acme/tampered acme/tampered
expect_contains "names the file" "$ERR" "'tampered.safetensors'"
expect_exit 3 sv resolve acme/tampered

# 4. Cancel: 64 slow downloads (0.5 s each, 8 at a time); cancelled mid-way, nothing committed.
expect_exit 0 sv sync --on-server --detach hf://acme/slow acme/slow
id=$OUT
sleep 0.5
expect_exit 0 sv sync-jobs "$id" --cancel --json
for _ in $(seq 100); do
  state=$(sv sync-jobs "$id" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')
  [ "$state" = cancelled ] && break
  sleep 0.1
done
expect_eq "cancelled" "$state" cancelled
expect_exit 3 sv resolve acme/slow

# 5. Who may do what: a reader cannot start or cancel; another tenant sees
#    nothing; a job for another tenant's volume is refused.
expect_exit 6 env SEALVOL_TOKEN=tok-reader-0123456789abcdef "$SEALVOL" sync --on-server hf://acme/private acme/private:r
expect_exit 0 env SEALVOL_TOKEN=tok-reader-0123456789abcdef "$SEALVOL" sync-jobs "$id"
expect_exit 6 env SEALVOL_TOKEN=tok-reader-0123456789abcdef "$SEALVOL" sync-jobs "$id" --cancel
expect_exit 3 env SEALVOL_TOKEN=tok-other-0123456789abcdef "$SEALVOL" sync-jobs "$id"
expect_exit 0 env SEALVOL_TOKEN=tok-other-0123456789abcdef "$SEALVOL" sync-jobs --json
expect_eq "other tenant sees no jobs" "$OUT" '{
  "jobs": []
}'

# 6. The request carries no credentials or endpoints, and no local paths.
code=$(curl -s -o "$WORK/body" -w '%{http_code}' -H "Authorization: Bearer tok-ci-0123456789abcdef" \
  -d '{"source":"s3://b/p","volume":"acme/x","endpoint":"http://169.254.169.254"}' "$URL/v1/sync-jobs")
expect_eq "endpoint field refused" "$code" 400
expect_contains "says why" "$(cat "$WORK/body")" "server's own environment"
expect_exit 2 sv sync --on-server "$WORK" acme/local
expect_contains "local source refused" "$ERR" "remote sources only"
expect_exit 2 sv sync --on-server file:///etc acme/local
finish
