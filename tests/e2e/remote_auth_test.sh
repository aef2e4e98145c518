#!/usr/bin/env bash
# The registry's auth matrix, through the CLI and raw HTTP, and what the
# server refuses to do without a tokens file.
source "$(dirname "$0")/lib.sh"

printf '%s\n' \
  "tok-writer-0123456789abcdef  writer  write:acme/*" \
  "tok-reader-0123456789abcdef  reader  read:acme/*" \
  "tok-other-0123456789abcdef   other   write:other/*" >"$WORK/tokens"
start_server registry "$WORK/server" --listen 127.0.0.1:0 --tokens "$WORK/tokens"
as() {
  local token=$1
  shift
  SEALVOL_REMOTE=$URL SEALVOL_TOKEN=$token "$SEALVOL" "$@"
}
# http METHOD PATH TOKEN [curl args]: prints the status code.
http() {
  local method=$1 path=$2 token=$3
  shift 3
  curl -s -o "$WORK/body" -w '%{http_code}' -X "$method" \
    ${token:+-H "Authorization: Bearer $token"} "$@" "$URL$path"
}

"$GENMODEL" "$WORK/model" --size 3000000 --seed 5 >/dev/null
expect_exit 0 as tok-writer-0123456789abcdef publish "$WORK/model" acme/m:v1 -q
digest=$OUT
"$GENMODEL" "$WORK/model2" --size 3000000 --seed 6 >/dev/null
expect_exit 0 as tok-other-0123456789abcdef publish "$WORK/model2" other/m:v1 -q

# No token, a wrong token: 401, exit code 6, a hint about the token.
expect_exit 6 as "" versions acme/m
expect_contains "no token" "$ERR" "a bearer token is required"
expect_exit 6 as tok-wrong-0123456789abcdef versions acme/m
expect_contains "wrong token" "$ERR" "not valid"
expect_eq "no token over HTTP" "$(http GET /v1/volumes/acme/m '')" 401
# Read-only token trying to write: 403.
expect_exit 6 as tok-reader-0123456789abcdef publish "$WORK/model" acme/m:v2 -q
expect_contains "reader may not write" "$ERR" "may not write acme/m"
expect_exit 6 as tok-reader-0123456789abcdef tag "acme/m@$digest" prod
expect_exit 0 as tok-reader-0123456789abcdef verify acme/m:v1
# A token for acme/* reading other/*: 403.
expect_exit 6 as tok-writer-0123456789abcdef versions other/m
expect_contains "outside the grant" "$ERR" "may not read other/m"
# Listings show only what the token may read.
expect_exit 0 as tok-reader-0123456789abcdef volumes
expect_eq "reader sees acme only" "$OUT" "acme/m"

# Probing another namespace's blob by digest, through one's own namespace:
# 404 for a read, and "missing" for a dedup check.
curl -s -H "Authorization: Bearer tok-writer-0123456789abcdef" \
  "$URL/v1/volumes/acme/m/manifests/v1" >"$WORK/manifest"
mdigest=sha256:$(sha256sum "$WORK/manifest" | cut -d' ' -f1)
expect_eq "manifest is the version" "$mdigest" "$digest"
# The version's manifest is a blob only acme/ has.
chunk=$digest
expect_eq "probe by GET" "$(http GET "/v1/volumes/other/m/blobs/$chunk" tok-other-0123456789abcdef)" 404
expect_eq "probe by dedup check" \
  "$(http POST /v1/volumes/other/m/blobs/missing tok-other-0123456789abcdef -d "{\"digests\":[\"$chunk\"]}")" 200
expect_contains "dedup answers missing" "$(cat "$WORK/body")" "$chunk"
# Committing a manifest that names acme's blobs from other/: 409, not a leak.
expect_eq "commit naming another tenant's blobs" \
  "$(http PUT "/v1/volumes/other/stolen/versions/$digest" tok-other-0123456789abcdef --data-binary @"$WORK/manifest")" 409

# History names the writer; tokens never reach the logs.
expect_exit 0 as tok-reader-0123456789abcdef history acme/m:v1 --json
expect_contains "actor" "$OUT" '"actor": "writer"'
if grep -q "0123456789abcdef" "$WORK/registry.log"; then fail "a token appears in the server log"; else pass; fi

# Without --tokens: loopback only.
expect_exit 2 sv serve --listen 0.0.0.0:0
expect_contains "refuses to serve openly" "$ERR" "without --tokens"
expect_exit 2 sv serve --listen 127.0.0.1:0 --tokens /dev/null
expect_contains "empty tokens file" "$ERR" "no tokens"

finish
