#!/usr/bin/env bash
# `sealvol sync gs://…` against a test server for the GCS JSON API
# (tests/fixtures/gcs_server.py, written from Google's public reference):
# bearer tokens, a service-account key exchanged for a token (RS256 JWT,
# verified by the server with openssl), public buckets, paging, generations.
source "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures" && pwd)
export SEALVOL_RETRY_FOR=2
unset GOOGLE_OAUTH_ACCESS_TOKEN GOOGLE_APPLICATION_CREDENTIALS STORAGE_EMULATOR_HOST
G=$WORK/gcs
M=$G/models/llama
mkdir -p "$M/tokenizer" "$G/public/cfg" "$G/many"
head -c 5000000 /dev/urandom >"$M/model-00001.safetensors"
head -c 3000000 /dev/urandom >"$M/model-00002.safetensors"
echo '{"hidden": 32}' >"$M/config.json"
echo vocab >"$M/tokenizer/read me+é.json"
echo public >"$G/public/cfg/config.json"
for i in $(seq 1 30); do echo "$i" >"$G/many/f$i.txt"; done
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$WORK/sa.pem" 2>/dev/null
openssl pkey -in "$WORK/sa.pem" -pubout -out "$WORK/sa.pub" 2>/dev/null
python3 "$FIX/gcs_server.py" --root "$G" --port-file "$WORK/gcs.port" --log "$WORK/gcs.log" \
  --public-key "$WORK/sa.pub" --public public --page-size 7 >"$WORK/gcs.out" 2>&1 &
GCS_PID=$!
trap 'kill $GCS_PID 2>/dev/null; cleanup_mounts; stop_servers; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do [ -s "$WORK/gcs.port" ] && break; sleep 0.1; done
GPORT=$(cat "$WORK/gcs.port")
EP=http://127.0.0.1:$GPORT
python3 - "$WORK/sa.pem" "$EP/token" >"$WORK/key.json" <<'PY'
import json, sys
print(json.dumps({"type": "service_account", "project_id": "test-project",
                  "private_key": open(sys.argv[1]).read(),
                  "client_email": "sync@test-project.iam.gserviceaccount.com",
                  "token_uri": sys.argv[2]}))
PY

# 1. A bearer token: byte-identical to a local publish, with provenance.
expect_exit 0 env GOOGLE_OAUTH_ACCESS_TOKEN=ya29.test-token "$SEALVOL" sync \
  gs://models/llama acme/gcs --endpoint "$EP" --json
expect_eq "gcs digest = local digest" "$(json digest)" "$(sv digest "$M")"
expect_exit 0 sv versions acme/gcs --json
expect_contains "provenance" "$OUT" '"uri": "gs://models/llama/"'

# 2. A service-account key file, via STORAGE_EMULATOR_HOST; a re-sync after
#    one shard changed downloads only that shard.
head -c 3000000 /dev/urandom >"$M/model-00002.safetensors"
expect_exit 0 env GOOGLE_APPLICATION_CREDENTIALS="$WORK/key.json" \
  STORAGE_EMULATOR_HOST="127.0.0.1:$GPORT" "$SEALVOL" sync gs://models/llama acme/gcs --json
expect_eq "service account digest" "$(json digest)" "$(sv digest "$M")"
expect_eq "incremental: only the changed shard" "$(json downloaded_bytes)" 3000000
expect_eq "incremental: the rest unchanged" "$(json unchanged_files)" 3
token_posts=$(grep -c '"path": "/token"' "$WORK/gcs.log")
expect_eq "one token exchange" "$token_posts" 1

# 3. A key the server does not know is refused with the server's reason.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$WORK/other.pem" 2>/dev/null
python3 - "$WORK/other.pem" "$EP/token" >"$WORK/other.json" <<'PY'
import json, sys
print(json.dumps({"type": "service_account", "private_key": open(sys.argv[1]).read(),
                  "client_email": "sync@test-project.iam.gserviceaccount.com",
                  "token_uri": sys.argv[2]}))
PY
expect_exit 6 env GOOGLE_APPLICATION_CREDENTIALS="$WORK/other.json" "$SEALVOL" sync \
  gs://models/llama acme/gcs:x --endpoint "$EP"
expect_contains "bad key" "$ERR" "invalid signature"
if [[ "$ERR" == *"PRIVATE KEY"* ]]; then fail "the key is in the error"; else pass; fi
echo '{"type": "authorized_user"}' >"$WORK/notsa.json"
expect_exit 2 env GOOGLE_APPLICATION_CREDENTIALS="$WORK/notsa.json" "$SEALVOL" sync \
  gs://models/llama acme/gcs:x --endpoint "$EP"
expect_contains "not a service account" "$ERR" "not a service-account key file"

# 4. A wrong token, no credentials, and a public bucket with --no-sign.
expect_exit 6 env GOOGLE_OAUTH_ACCESS_TOKEN=ya29.wrong "$SEALVOL" sync gs://models/llama \
  acme/gcs:x --endpoint "$EP"
expect_contains "wrong token" "$ERR" "HTTP 401"
expect_exit 6 sv sync gs://models/llama acme/gcs:x --endpoint "$EP"
expect_contains "no credentials" "$ERR" "GOOGLE_APPLICATION_CREDENTIALS"
expect_exit 0 sv sync gs://public/cfg acme/public --endpoint "$EP" --no-sign
expect_exit 0 sv cat acme/public config.json
expect_eq "public bucket" "$OUT" public
expect_exit 3 sv resolve acme/gcs:x

# 5. Paging (7 per page) and a missing bucket.
expect_exit 0 env GOOGLE_OAUTH_ACCESS_TOKEN=ya29.test-token "$SEALVOL" sync gs://many \
  acme/many --endpoint "$EP" --json
expect_eq "every page" "$(json files)" 30
expect_exit 3 env GOOGLE_OAUTH_ACCESS_TOKEN=ya29.test-token "$SEALVOL" sync gs://nope \
  acme/nope --endpoint "$EP"
finish
