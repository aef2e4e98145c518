#!/usr/bin/env bash
# The server's connection lifecycle: a client too slow to send its request
# is cut off, an idle keep-alive connection is closed, and SIGTERM lets a
# request in progress finish before the server exits.
source "$(dirname "$0")/lib.sh"
start_server registry "$WORK/server" --listen 127.0.0.1:0 \
  --read-timeout 2 --idle-timeout 2 --shutdown-grace 20

# seconds_until_closed HEADER_BYTES: opens a connection, sends the bytes,
# prints how long the server takes to close it (99 if it never does).
seconds_until_closed() {
  python3 - "$PORT" "$1" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
s.settimeout(15)
t0 = time.time()
try:
    while s.recv(4096):
        pass
    print(round(time.time() - t0))
except socket.timeout:
    print(99)
PY
}
# A body promised and never sent: cut off after the read timeout.
slow=$(seconds_until_closed 'PUT /v1/volumes/a/m/blobs/sha256:00 HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nonly ten b')
[ "$slow" -le 5 ] && pass || fail "slow client kept for ${slow}s"
# Half a header, then nothing.
half=$(seconds_until_closed 'GET /healthz HTTP/1.1\r\nHo')
[ "$half" -le 5 ] && pass || fail "half a header kept for ${half}s"
# A finished request on a kept-alive connection, then silence.
idle=$(seconds_until_closed 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')
[ "$idle" -le 5 ] && pass || fail "idle connection kept for ${idle}s"
expect_eq "still serving" "$(curl -s "$URL/healthz")" "ok"

# SIGTERM while a slow upload is in progress: it gets its answer (400: the
# bytes are not the digest's), then the server exits 0.
head -c 3000000 /dev/urandom >"$WORK/body"
curl -s -o "$WORK/answer" -w '%{http_code}' --limit-rate 1500k -X PUT -H "Expect:" \
  --data-binary @"$WORK/body" "$URL/v1/volumes/a/m/blobs/sha256:$(printf '%064d' 0)" \
  >"$WORK/code" &
upload=$!
sleep 0.7
kill -TERM "$SERVER_PID"
sleep 0.3
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$URL/healthz")
expect_eq "no new connections after SIGTERM" "$code" "000"
wait $upload
expect_eq "the upload in progress got its answer" "$(cat "$WORK/code")" 400
expect_contains "with the reason" "$(cat "$WORK/answer")" "does not match"
wait "$SERVER_PID"
expect_eq "server exit code" "$?" 0
expect_contains "server said it stopped" "$(cat "$WORK/registry.log")" "stopped"

# A request slower than the grace period is cut off, and the server still
# exits cleanly (sanitizer builds check nothing outlives it).
start_server registry2 "$WORK/server" --listen 127.0.0.1:0 --shutdown-grace 1
curl -s -o /dev/null --limit-rate 100k -X PUT -H "Expect:" --data-binary @"$WORK/body" \
  "$URL/v1/volumes/a/m/blobs/sha256:$(printf '%064d' 0)" &
slow_upload=$!
sleep 0.5
t0=$(date +%s)
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
expect_eq "exit code after the grace period ran out" "$?" 0
[ $(( $(date +%s) - t0 )) -le 5 ] && pass || fail "the grace period was not enforced"
kill "$slow_upload" 2>/dev/null
wait "$slow_upload" 2>/dev/null

finish
