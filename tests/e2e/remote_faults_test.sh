#!/usr/bin/env bash
# Faults around a registry: the server killed in the middle of a publish
# (clear error; after a restart the re-run uploads only what is missing),
# and clients racing to move one tag (exactly one wins each round).
source "$(dirname "$0")/lib.sh"
export SEALVOL_TOKEN=tok-ci-0123456789abcdef
export SEALVOL_RETRY_FOR=2
echo "$SEALVOL_TOKEN  ci  admin:*" >"$WORK/tokens"
start_server registry "$WORK/server" --listen 127.0.0.1:0 --tokens "$WORK/tokens"
export SEALVOL_REMOTE=$URL

"$GENMODEL" "$WORK/model" --size 300000000 --seed 21 >/dev/null
"$SEALVOL" publish "$WORK/model" acme/big:v1 -q --json >"$WORK/pub.out" 2>"$WORK/pub.err" &
pub=$!
# Kill the server once part of the model is uploaded.
for i in $(seq 600); do
  added=$(metric 'sealvol_blob_added_bytes_total')
  [ "${added:-0}" -gt 60000000 ] && break
  sleep 0.05
done
kill -9 "$SERVER_PID"
echo "server killed after $added bytes were added"
wait $pub
code=$?
[ "$code" -ne 0 ] && pass || fail "publish survived a dead server"
expect_contains "publish names the unreachable registry" "$(cat "$WORK/pub.err")" "registry unreachable"
[ "$added" -lt 300000000 ] && pass || fail "the kill came too late ($added bytes added)"

start_server registry "$WORK/server" --listen "127.0.0.1:$PORT" --tokens "$WORK/tokens"
expect_exit 3 sv resolve acme/big:v1   # nothing half-written is visible
expect_exit 0 sv publish "$WORK/model" acme/big:v1 -q --json
total=$(json bytes)
new=$(json new_bytes)
reused=$(json reused_bytes)
echo "re-run: $new new bytes, $reused reused of $total"
[ "$reused" -ge 50000000 ] && pass || fail "re-run reused only $reused bytes"
[ "$new" -lt "$total" ] && pass || fail "re-run uploaded everything again"
added2=$(metric 'sealvol_blob_added_bytes_total')
[ "$added2" -lt "$total" ] && pass || fail "server stored $added2 bytes on the re-run"
expect_exit 0 sv verify acme/big:v1

# Two clients race to move one tag from the same expected value.
"$GENMODEL" "$WORK/m1" --size 1000000 --seed 1 >/dev/null
"$GENMODEL" "$WORK/m2" --size 1000000 --seed 2 >/dev/null
d1=$(sv publish "$WORK/m1" acme/race:one -q)
d2=$(sv publish "$WORK/m2" acme/race:two -q)
sv tag "acme/race@$d1" prod >/dev/null
cur=$d1
for round in 1 2 3 4 5 6; do
  next=$([ "$cur" == "$d1" ] && echo "$d2" || echo "$d1")
  sv tag "acme/race@$next" prod --expect "$cur" >/dev/null 2>&1 &
  p1=$!
  sv tag "acme/race@$next" prod --expect "$cur" >/dev/null 2>&1 &
  p2=$!
  wait $p1
  r1=$?
  wait $p2
  r2=$?
  wins=$(( (r1 == 0) + (r2 == 0) ))
  losses=$(( (r1 == 5) + (r2 == 5) ))
  expect_eq "round $round: one winner, one conflict" "$wins/$losses" "1/1"
  cur=$next
done
expect_exit 0 sv history acme/race:prod --json
moves=$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["history"]))' <<<"$OUT")
expect_eq "history has one move per round plus creation" "$moves" 7

finish
