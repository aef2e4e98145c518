#!/usr/bin/env bash
# A registry scaled out: blobs in Ceph's RADOS Gateway (a real S3 engine),
# metadata in PostgreSQL, two `sealvol serve` replicas over both. Runs the
# shared BlobStore and MetaStore suites against them, then drives the real
# binary through both replicas: publish/tag/mount alternating, concurrent
# tag moves, gc during publishes, a replica killed mid-publish, presigned
# blob redirects.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../fixtures/ceph_rgw.sh"
source "$(dirname "$0")/../fixtures/postgres.sh"
trap 'rgw_stop; pg_stop; cleanup_mounts; stop_servers; rm -rf "$WORK"' EXIT
if ! rgw_start "$WORK/ceph" || ! pg_start; then
  fail "the RADOS Gateway or PostgreSQL did not start"
  finish
  exit 1
fi
AWS=/usr/bin/aws
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY
export AWS_DEFAULT_REGION=us-east-1 AWS_CONFIG_FILE=$WORK/none
export AWS_SHARED_CREDENTIALS_FILE=$WORK/none SEALVOL_RETRY_FOR=5
s3() { "$AWS" --endpoint-url "$S3_ENDPOINT" "$@"; }
s3 s3 mb s3://suite >/dev/null
s3 s3 mb s3://registry >/dev/null

# --- The shared suites, against the gateway and the server.
ok_count() { grep -c '^\[       OK \]' "$1"; }
SEALVOL_TEST_S3_ENDPOINT=$S3_ENDPOINT SEALVOL_TEST_S3_BUCKET=suite \
  "${STORE_TEST:?}" --gtest_filter='*/s3:S3BlobStoreTest.*' >"$WORK/store.out" 2>&1 \
  && pass || { fail "BlobStore suite on S3:"; grep -E "Failure|error|FAILED" -A3 "$WORK/store.out" | head -30 >&2; }
[ "$(ok_count "$WORK/store.out")" -ge 7 ] && pass || fail "BlobStore suite on S3 ran $(ok_count "$WORK/store.out") cases"
SEALVOL_TEST_PG=$PG_BASE "${META_TEST:?}" --gtest_filter='*/postgres:PgMetaStoreTest.*' \
  >"$WORK/meta.out" 2>&1 \
  && pass || { fail "MetaStore suite on PostgreSQL:"; grep -E "Failure|error|FAILED" -A3 "$WORK/meta.out" | head -30 >&2; }
[ "$(ok_count "$WORK/meta.out")" -ge 7 ] && pass || fail "MetaStore suite on PostgreSQL ran $(ok_count "$WORK/meta.out") cases"

# --- Migrations: applied once, recorded, and a newer schema is refused.
DB=$(pg_createdb registry)
BACK=(--blobs s3://registry/team --endpoint "$S3_ENDPOINT" --meta "$DB")
expect_exit 0 sv --store "$WORK/r0" serve --migrate "${BACK[@]}"
expect_contains "migrate says so" "$ERR" "schema is current"
expect_eq "schema recorded" "$(psql -tAq "$DB" -c 'SELECT max(version) FROM sealvol_schema')" 1
NEWER=$(pg_createdb newer)
expect_exit 0 sv --store "$WORK/r0" serve --migrate --meta "$NEWER"
psql -q "$NEWER" -c 'INSERT INTO sealvol_schema VALUES (99, 0)'
expect_exit 5 sv --store "$WORK/r0" serve --migrate --meta "$NEWER"
expect_contains "newer schema refused" "$ERR" "newer than this sealvol knows"
# Clear errors for a wrong secret, a missing bucket, a bad database URL.
expect_exit 6 env AWS_SECRET_ACCESS_KEY=wrong-secret "$SEALVOL" --store "$WORK/r0" serve --migrate "${BACK[@]}"
expect_contains "wrong secret" "$ERR" "SignatureDoesNotMatch"
[[ "$ERR" != *wrong-secret* ]] && pass || fail "the secret leaked into an error"
expect_exit 3 sv --store "$WORK/r0" serve --migrate --blobs s3://no-such-bucket --endpoint "$S3_ENDPOINT"
expect_contains "missing bucket" "$ERR" "no-such-bucket"
expect_exit 1 sv --store "$WORK/r0" serve --migrate --meta "postgres://postgres:hunter2@127.0.0.1:1/x"
[[ "$ERR" != *hunter2* ]] && pass || fail "the database password leaked: $ERR"
expect_exit 2 sv --store "$WORK/r0" serve --migrate --meta "mysql://root:hunter2@127.0.0.1/x"
[[ "$ERR" != *hunter2* ]] && pass || fail "the password of a bad --meta leaked: $ERR"
# serve names its backends with the password masked.
expect_exit 0 sv --store "$WORK/r0" serve --migrate --meta "${DB/postgres@/postgres:s3cret@}"
expect_contains "a password is masked" "$ERR" "postgres:***@"
[[ "$ERR" != *s3cret* ]] && pass || fail "the password leaked: $ERR"

# --- Two replicas over the same bucket and database.
start_server a "$WORK/ra" --listen 127.0.0.1:0 "${BACK[@]}" || exit 1
URL_A=$URL PID_A=$SERVER_PID
start_server b "$WORK/rb" --listen 127.0.0.1:0 "${BACK[@]}" || exit 1
URL_B=$URL PID_B=$SERVER_PID
ca() { SEALVOL_HOME=$WORK/ca SEALVOL_CACHE_DIR=$WORK/ca/cache "$SEALVOL" --remote "$URL_A" "$@"; }
cb() { SEALVOL_HOME=$WORK/cb SEALVOL_CACHE_DIR=$WORK/cb/cache "$SEALVOL" --remote "$URL_B" "$@"; }

"$GENMODEL" "$WORK/m1" --size 30000000 --seed 1 >/dev/null
cp -r "$WORK/m1" "$WORK/m2" && head -c 3000000 /dev/urandom >"$WORK/m2/extra.bin"
expect_exit 0 ca publish "$WORK/m1" acme/m:v1 --json -q
D1=$(json digest)
expect_exit 0 cb publish "$WORK/m2" acme/m:v2 --json -q
D2=$(json digest)
new=$(json new_bytes)
[ "$new" -lt 6000000 ] && pass || fail "v2 through B uploaded $new bytes; v1's chunks (through A) should dedupe"
expect_exit 0 ca tag acme/m:v1 prod
expect_exit 0 cb resolve acme/m:prod
expect_eq "B sees A's tag" "$OUT" "$D1"
expect_exit 0 ca resolve acme/m:v2
expect_eq "A sees B's version" "$OUT" "$D2"
mkdir -p "$WORK/mnt"
expect_exit 0 cb mount acme/m:prod "$WORK/mnt" -q
same_tree "mount through B shows what A published" "$WORK/m1" "$WORK/mnt"
cb umount "$WORK/mnt" -q
blobs=$(s3 s3 ls --recursive s3://registry/team/blobs/sha256/ | wc -l)
[ "$blobs" -gt 5 ] && pass || fail "only $blobs blobs in the bucket"
expect_eq "replicas keep no blobs locally" "$(find "$WORK/ra" "$WORK/rb" -path '*blobs*' -type f | wc -l)" 0

# --- Concurrent tag moves through both replicas: one winner per round.
rounds=8
for round in $(seq $rounds); do
  cur=$(ca resolve acme/m:race 2>/dev/null || echo none)
  [ "$cur" == "$D1" ] && to=$D2 || to=$D1
  racers=()
  for i in 1 2 3 4; do
    if [ $((i % 2)) -eq 0 ]; then c=ca; else c=cb; fi
    ( $c tag "acme/m@$to" race --expect "$cur" -q >/dev/null 2>&1; echo $? >"$WORK/race.$i" ) &
    racers+=($!)
  done
  wait "${racers[@]}"
  wins=$(grep -lx 0 "$WORK"/race.* | wc -l)
  expect_eq "round $round winners" "$wins" 1
  losers=$(grep -lx 5 "$WORK"/race.* | wc -l)
  expect_eq "round $round losers exit 5" "$losers" 3
done
expect_exit 0 cb history acme/m:race --json
moves=$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["history"]))' <<<"$OUT")
expect_eq "history has every winning move" "$moves" "$rounds"
chained=$(python3 -c '
import json, sys
h = json.load(sys.stdin)["history"]
print(all(h[i]["from"] == h[i - 1]["to"] for i in range(1, len(h))))' <<<"$OUT")
expect_eq "each move starts where the last ended" "$chained" True

# --- GC during publishes: garbage old enough goes, every version stays whole.
for i in $(seq 12); do
  python3 -c 'import sys; sys.stdout.buffer.write(b"\0garbage-" + sys.argv[1].encode())' "$i" >"$WORK/g"
  d=$(python3 -c 'import hashlib,sys; print("sha256:"+hashlib.sha256(b"garbage-"+sys.argv[1].encode()).hexdigest())' "$i")
  curl -sf -X PUT --data-binary @"$WORK/g" "$URL_A/v1/volumes/acme/m/blobs/$d" >/dev/null || fail "garbage upload $i"
done
sleep 4
pids=()
for i in 1 2 3 4; do
  "$GENMODEL" "$WORK/p$i" --size 12000000 --seed $((100 + i)) >/dev/null
  cp "$WORK/m1/"* "$WORK/p$i/" 2>/dev/null  # reuses v1's chunks too
  if [ $((i % 2)) -eq 0 ]; then c=ca; else c=cb; fi
  $c publish "$WORK/p$i" "acme/p$i:v1" -q >"$WORK/pub.$i" 2>&1 &
  pids+=($!)
done
removed=0
for k in 1 2 3; do
  sv --store "$WORK/r0" gc --grace 3 "${BACK[@]}" --json >"$WORK/gc.$k" 2>&1 \
    || fail "gc $k: $(cat "$WORK/gc.$k")"
  r=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["removed_blobs"])' "$WORK/gc.$k" 2>/dev/null || echo 0)
  removed=$((removed + r))
done
for p in "${pids[@]}"; do wait "$p" && pass || fail "a publish during gc failed: $(cat "$WORK"/pub.*)"; done
[ "$removed" -ge 12 ] && pass || fail "gc removed $removed blobs, want the 12 garbage blobs"
for ref in acme/m@$D1 acme/m@$D2 acme/p1:v1 acme/p2:v1 acme/p3:v1 acme/p4:v1; do
  expect_exit 0 cb verify "$ref" -q
done

# --- A replica killed mid-publish: the client moves to the other. A mount
# made through both before the kill reads its bytes after it.
"$GENMODEL" "$WORK/big" --size 150000000 --seed 7 >/dev/null
both() { SEALVOL_HOME=$WORK/cc SEALVOL_CACHE_DIR=$WORK/cc/cache "$SEALVOL" --remote "$URL_A,$URL_B" "$@"; }
mkdir -p "$WORK/mnt2"
expect_exit 0 both mount acme/m:v2 "$WORK/mnt2" -q --cache-size 0
SEALVOL_HOME=$WORK/cc SEALVOL_CACHE_DIR=$WORK/cc/cache "$SEALVOL" \
  --remote "$URL_A,$URL_B" publish "$WORK/big" acme/big:v1 --json -q >"$WORK/big.out" 2>"$WORK/big.err" &
pub=$!
for i in $(seq 100); do
  grep -q "PUT /v1/volumes/acme/big/blobs" "$WORK/a.log" && break
  sleep 0.05
done
kill -9 "$PID_A"
if wait "$pub"; then pass; else fail "publish did not survive the replica's death: $(cat "$WORK/big.err")"; fi
served_a=$(grep -c "acme/big/blobs" "$WORK/a.log")
served_b=$(grep -c "acme/big/blobs" "$WORK/b.log")
[ "$served_a" -gt 0 ] && [ "$served_b" -gt 0 ] && pass || fail "uploads went A=$served_a B=$served_b, want both"
expect_exit 0 cb verify acme/big:v1 -q
same_tree "a mount through both replicas reads on after one died" "$WORK/m2" "$WORK/mnt2"
both umount "$WORK/mnt2" -q

# --- Presigned redirects: bytes come from the bucket, the token stays home.
printf '%s\n' "tok-team-0123456789abcdef team write:acme/*" >"$WORK/tokens"
start_server c "$WORK/rc" --listen 127.0.0.1:0 "${BACK[@]}" --redirect-blobs --tokens "$WORK/tokens" || exit 1
cc() { SEALVOL_HOME=$WORK/cd SEALVOL_CACHE_DIR=$WORK/cd/cache SEALVOL_TOKEN=tok-team-0123456789abcdef "$SEALVOL" --remote "$URL" "$@"; }
expect_exit 0 cc pull acme/m:v2 "$WORK/pulled" -q
same_tree "pull through redirects" "$WORK/m2" "$WORK/pulled"
redirects=$(grep -c "GET /v1/volumes/acme/m/blobs/sha256:[0-9a-f]*\" 307 " "$WORK/c.log")
[ "$redirects" -gt 0 ] && pass || fail "no blob GET was redirected: $(grep blobs "$WORK/c.log" | head -3)"
# The presigned URL works on its own and the gateway refuses it when a
# bearer token rides along, so the pull above did not forward the token.
loc=$(curl -s -o /dev/null -w '%{redirect_url}' -H "Authorization: Bearer tok-team-0123456789abcdef" \
  "$URL/v1/volumes/acme/m/blobs/$D1")
expect_contains "redirect goes to the bucket" "$loc" "$S3_ENDPOINT/registry/team/blobs/sha256/"
expect_eq "presigned URL alone" "$(curl -s -o /dev/null -w '%{http_code}' "$loc")" 200
expect_eq "presigned URL with a bearer token" \
  "$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer tok-team-0123456789abcdef' "$loc")" 400
# Without a token, the registry gives no URL.
code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/v1/volumes/acme/m/blobs/$D1")
expect_eq "no token, no redirect" "$code" 401
finish
