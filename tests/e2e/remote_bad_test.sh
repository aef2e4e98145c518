#!/usr/bin/env bash
# Hostile and malformed requests to the registry: each gets a clear 4xx,
# the server stays up, and nothing is kept. Also: a thousand idle
# keep-alive connections do not stall a fetch.
source "$(dirname "$0")/lib.sh"

echo "tok-writer-0123456789abcdef  writer  admin:*" >"$WORK/tokens"
start_server registry "$WORK/server" --listen 127.0.0.1:0 --tokens "$WORK/tokens"
AUTH="Authorization: Bearer tok-writer-0123456789abcdef"
# req METHOD PATH [curl args]: prints the status code; the body is in $WORK/body.
req() {
  local method=$1 path=$2
  shift 2
  curl -s -o "$WORK/body" -w '%{http_code}' -X "$method" -H "$AUTH" "$@" "$URL$path"
}
blob_files() { find "$WORK/server/blobs" -type f 2>/dev/null | wc -l; }

"$GENMODEL" "$WORK/model" --size 2000000 --seed 9 >/dev/null
SEALVOL_REMOTE=$URL SEALVOL_TOKEN=tok-writer-0123456789abcdef \
  "$SEALVOL" publish "$WORK/model" acme/m:v1 -q >/dev/null || fail "publish"
blobs_before=$(blob_files)
versions_before=$(sqlite3 "$WORK/server/meta.db" 'select count(*) from versions')

zero=sha256:$(printf '' | sha256sum | cut -d' ' -f1)
good=sha256:$(printf 'hello' | sha256sum | cut -d' ' -f1)
printf '\x00hello' >"$WORK/hello.env"   # a codec-0 (raw) envelope of "hello"
printf '\x00HELLO' >"$WORK/wrong.env"

check() {  # check WHAT WANT_CODE ACTUAL_CODE
  expect_eq "$1" "$3" "$2"
  grep -q '"error"' "$WORK/body" && pass || fail "$1: no error message in $(cat "$WORK/body")"
}
check "malformed digest" 400 "$(req GET /v1/volumes/acme/m/blobs/sha256:xyz)"
check "upper-case digest" 400 "$(req GET "/v1/volumes/acme/m/blobs/sha256:$(printf 'x' | sha256sum | cut -d' ' -f1 | tr a-f A-F)")"
check "wrong algorithm" 400 "$(req GET /v1/volumes/acme/m/blobs/md5:d41d8cd98f00b204e9800998ecf8427e)"
check "dot-dot in name" 400 "$(req GET /v1/volumes/acme/../etc/passwd --path-as-is)"
check "encoded dot-dot" 400 "$(req GET /v1/volumes/acme/%2e%2e/m --path-as-is)"
check "bad volume name" 400 "$(req GET /v1/volumes/ACME/M)"
check "blob not matching its digest" 400 "$(req PUT "/v1/volumes/acme/m/blobs/$good" --data-binary @"$WORK/wrong.env")"
expect_contains "mismatch says so" "$(cat "$WORK/body")" "does not match"
check "not an envelope" 400 "$(req PUT "/v1/volumes/acme/m/blobs/$good" --data-binary 'plain')"
check "bad JSON" 400 "$(req POST /v1/volumes/acme/m/blobs/missing --data-binary '{"digests":')"
check "bad tag body" 400 "$(req PUT /v1/volumes/acme/m/tags/prod --data-binary '["x"]')"
check "unknown route" 404 "$(req GET /v2/anything)"

# Manifests: not canonical, digest not the body's, names missing blobs.
curl -s -H "$AUTH" "$URL/v1/volumes/acme/m/manifests/v1" >"$WORK/manifest"
python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), indent=1))' "$WORK/manifest" >"$WORK/pretty"
pretty=sha256:$(sha256sum "$WORK/pretty" | cut -d' ' -f1)
check "non-canonical manifest" 400 "$(req PUT "/v1/volumes/acme/n/versions/$pretty" --data-binary @"$WORK/pretty")"
check "manifest digest mismatch" 400 "$(req PUT "/v1/volumes/acme/n/versions/$zero" --data-binary @"$WORK/manifest")"
sed 's/"size":104/"size":105/' "$WORK/manifest" >"$WORK/other"
other=sha256:$(sha256sum "$WORK/other" | cut -d' ' -f1)
code=$(req PUT "/v1/volumes/acme/n/versions/$other" --data-binary @"$WORK/other")
[[ "$code" == 400 || "$code" == 409 ]] && pass || fail "tampered manifest: $code"

# Size limits: answered from Content-Length, before the body is read.
head -c $((65 << 20)) /dev/zero >"$WORK/big"
check "oversize blob" 413 "$(req PUT "/v1/volumes/acme/m/blobs/$good" --data-binary @"$WORK/big")"
check "oversize manifest" 413 "$(req PUT "/v1/volumes/acme/m/versions/$good" --data-binary @"$WORK/big")"
head -c $((70 << 10)) /dev/zero | tr '\0' 'a' >"$WORK/70k"
check "oversize tag move" 413 "$(req PUT /v1/volumes/acme/m/tags/prod --data-binary @"$WORK/70k")"
python3 -c 'import json; print(json.dumps({"digests": ["sha256:"+"%064x" % i for i in range(10001)]}))' >"$WORK/batch"
check "oversize dedup batch" 413 "$(req POST /v1/volumes/acme/m/blobs/missing --data-binary @"$WORK/batch")"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $(head -c 20000 /dev/zero | tr '\0' 'a')" "$URL/healthz")
expect_eq "oversize headers" "$code" 431

# The server is up, and nothing was kept.
expect_eq "healthz after all that" "$(curl -s "$URL/healthz")" "ok"
expect_eq "no blob kept" "$(blob_files)" "$blobs_before"
expect_eq "no version kept" "$(sqlite3 "$WORK/server/meta.db" 'select count(*) from versions')" "$versions_before"

# A valid upload still works afterwards.
expect_eq "good blob" "$(req PUT "/v1/volumes/acme/m/blobs/$good" --data-binary @"$WORK/hello.env")" 201

# A thousand idle keep-alive connections, then a fetch.
python3 - "$PORT" "$WORK/idle.ready" <<'PY' &
import socket, sys, time
port, ready = int(sys.argv[1]), sys.argv[2]
conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(1000)]
open(ready, "w").write("ok")
time.sleep(20)
PY
idle=$!
for i in $(seq 100); do [ -s "$WORK/idle.ready" ] && break; sleep 0.1; done
start=$(date +%s.%N)
expect_eq "fetch with 1000 idle connections" "$(req GET "/v1/volumes/acme/m/blobs/$good")" 200
elapsed=$(python3 -c "import time; print(round(time.time()-$start, 3))")
echo "fetch took ${elapsed}s with $(curl -s "$URL/metrics" | awk '$1=="sealvol_http_connections_open"{print $2}') connections open"
kill $idle 2>/dev/null
wait $idle 2>/dev/null

finish
