#!/usr/bin/env bash
# `sealvol sync` from S3-compatible storage, against a real engine: a
# single-node Ceph cluster with the RADOS Gateway (tests/fixtures/ceph_rgw.sh)
# that checks every signature. Objects are put there with Debian's awscli.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../fixtures/ceph_rgw.sh"
trap 'rgw_stop; cleanup_mounts; stop_servers; rm -rf "$WORK"' EXIT
if ! rgw_start "$WORK/ceph"; then
  fail "the RADOS Gateway did not start"
  finish
  exit 1
fi
AWS=/usr/bin/aws  # Debian's awscli (scripts/install-deps.sh test)
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY
export AWS_DEFAULT_REGION=us-east-1 AWS_CONFIG_FILE=$WORK/none
export AWS_SHARED_CREDENTIALS_FILE=$WORK/none SEALVOL_RETRY_FOR=2
s3() { "$AWS" --endpoint-url "$S3_ENDPOINT" "$@"; }
PORT=${S3_ENDPOINT##*:}

# A checkpoint: two shards, a config, a file whose key needs escaping, and a
# zero-byte folder marker (skipped).
M=$WORK/model
mkdir -p "$M/tokenizer"
head -c 24000000 /dev/urandom >"$M/model-00001.safetensors"
head -c 16000000 /dev/urandom >"$M/model-00002.safetensors"
echo '{"hidden": 4096}' >"$M/config.json"
echo 'vocab' >"$M/tokenizer/read me+é.json"
s3 s3 mb s3://models >/dev/null
s3 s3 cp --recursive --quiet "$M" s3://models/llama/
s3 s3api put-object --bucket models --key llama/logs/ >/dev/null
want=$(sv digest "$M")

# 1. Credentials from the environment: the version is byte-identical to
#    publishing the same files from disk, and records where it came from.
expect_exit 0 sv sync "s3://models/llama" acme/llama:v1 --endpoint "$S3_ENDPOINT" --json
expect_eq "s3 digest = local digest" "$(json digest)" "$want"
expect_eq "downloaded everything" "$(json downloaded_bytes)" 40000023
expect_exit 0 sv versions acme/llama --json
ann=$(python3 -c 'import json,sys; v=json.load(sys.stdin)["versions"][0]["annotations"]["source"]; print(v["uri"], len(v["identities"]), v["identities"]["config.json"] != "")' <<<"$OUT")
expect_eq "provenance annotations" "$ann" "s3://models/llama/ 4 True"
expect_exit 0 sv pull acme/llama:v1 "$WORK/pulled"
expect_exit 0 diff -r "$M" "$WORK/pulled"

# 2. A re-sync after one shard changed downloads only that shard.
head -c 16000000 /dev/urandom >"$M/model-00002.safetensors"
s3 s3 cp --quiet "$M/model-00002.safetensors" s3://models/llama/
expect_exit 0 sv sync s3://models/llama acme/llama:v1 --endpoint "$S3_ENDPOINT" --json
expect_eq "incremental: only the changed shard" "$(json downloaded_bytes)" 16000000
expect_eq "incremental: the rest unchanged" "$(json unchanged_files)" 3
expect_eq "incremental digest" "$(json digest)" "$(sv digest "$M")"
expect_exit 0 sv sync s3://models/llama acme/llama:v1 --endpoint "$S3_ENDPOINT" --json --full
expect_eq "--full downloads everything" "$(json downloaded_bytes)" 40000023
expect_eq "--full stores nothing new" "$(json new_bytes)" 0

# 3. Filters.
expect_exit 0 sv sync s3://models/llama acme/llama:json --endpoint "$S3_ENDPOINT" \
  --include '*.json' --exclude 'tokenizer/*' --json
expect_eq "filters keep config.json" "$(json files)" 1
expect_eq "filters skipped" "$(json skipped_by_filters)" 3

# 4. Credentials from a profile in ~/.aws/credentials, region from config.
mkdir -p "$WORK/home/.aws"
printf '[team]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
  "$S3_ACCESS_KEY" "$S3_SECRET_KEY" >"$WORK/home/.aws/credentials"
printf '[profile team]\nregion = us-east-1\n' >"$WORK/home/.aws/config"
expect_exit 0 env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY \
  -u AWS_CONFIG_FILE -u AWS_SHARED_CREDENTIALS_FILE HOME="$WORK/home" \
  AWS_PROFILE=team "$SEALVOL" sync s3://models/llama acme/llama:profile \
  --endpoint "$S3_ENDPOINT"
expect_eq "profile credentials" "$OUT" "$(sv digest "$M")"
expect_exit 3 env -u AWS_ACCESS_KEY_ID -u AWS_CONFIG_FILE \
  -u AWS_SHARED_CREDENTIALS_FILE HOME="$WORK/home" AWS_PROFILE=nobody \
  "$SEALVOL" sync s3://models/llama acme/llama:x --endpoint "$S3_ENDPOINT"
expect_contains "unknown profile" "$ERR" "'nobody'"

# 5. A wrong secret: a clear 403, the secret never shown, nothing committed.
before=$(sv versions acme/llama --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["versions"]))')
expect_exit 6 env AWS_SECRET_ACCESS_KEY=wrong-secret-123 "$SEALVOL" sync \
  s3://models/llama acme/llama:bad --endpoint "$S3_ENDPOINT"
expect_contains "wrong secret names the error" "$ERR" "SignatureDoesNotMatch"
expect_contains "wrong secret hints" "$ERR" "check the secret key"
if [[ "$ERR" == *wrong-secret-123* ]]; then fail "the secret is in the error"; else pass; fi
expect_exit 3 sv resolve acme/llama:bad
after=$(sv versions acme/llama --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["versions"]))')
expect_eq "no version from a failed sync" "$after" "$before"
expect_exit 6 env -u AWS_ACCESS_KEY_ID "$SEALVOL" sync s3://models/llama \
  acme/llama:x --endpoint "$S3_ENDPOINT"
expect_contains "no credentials" "$ERR" "--no-sign"

# 6. Public buckets with --no-sign; a private one refuses unsigned reads.
s3 s3 mb s3://public >/dev/null
s3 s3api put-bucket-acl --bucket public --acl public-read
s3 s3 cp --quiet --acl public-read "$M/config.json" s3://public/cfg/config.json
expect_exit 0 env -u AWS_ACCESS_KEY_ID "$SEALVOL" sync s3://public/cfg \
  acme/public --endpoint "$S3_ENDPOINT" --no-sign
expect_exit 0 sv cat acme/public config.json
expect_eq "public bucket content" "$OUT" '{"hidden": 4096}'
expect_exit 0 sv versions acme/public --json
expect_contains "provenance of the public sync" "$OUT" '"uri": "s3://public/cfg/"'
expect_exit 6 sv sync s3://models/llama acme/llama:x --endpoint "$S3_ENDPOINT" --no-sign
expect_contains "private bucket unsigned" "$ERR" "AccessDenied"

# 7. Presets pointed at the gateway: r2:// (path-style, region auto) and
#    cw:// (virtual-hosted: BUCKET.localhost; path-style to 127.0.0.1 fails).
expect_exit 0 sv sync r2://0123abcd/models/llama acme/llama:r2 --endpoint "$S3_ENDPOINT"
expect_eq "r2 preset" "$OUT" "$(sv digest "$M")"
expect_exit 0 sv sync cw://models/llama acme/llama:cw --endpoint "http://localhost:$PORT"
expect_eq "cw preset, virtual-hosted" "$OUT" "$(sv digest "$M")"
expect_exit 1 sv sync cw://models/llama acme/llama:x --endpoint "http://127.0.0.1:$PORT"
expect_contains "cw addressing is virtual-hosted" "$ERR" "models.127.0.0.1"

# 8. Hostile listings are refused before anything is read.
s3 s3api put-object --bucket models --key 'evil/../../etc/cron.d/x' --body "$M/config.json" >/dev/null
expect_exit 2 sv sync s3://models/evil acme/evil --endpoint "$S3_ENDPOINT"
expect_contains "dot-dot key" "$ERR" "not a safe path"
s3 s3api put-object --bucket models --key 'clash/a' --body "$M/config.json" >/dev/null
s3 s3api put-object --bucket models --key 'clash/a/b' --body "$M/config.json" >/dev/null
expect_exit 2 sv sync s3://models/clash acme/evil --endpoint "$S3_ENDPOINT"
expect_contains "file and folder" "$ERR" "also listed as a file"
expect_exit 3 sv sync s3://models/nothing-here acme/evil --endpoint "$S3_ENDPOINT"
expect_contains "empty prefix" "$ERR" "nothing is listed under s3://models/nothing-here/"
expect_exit 3 sv resolve acme/evil

# 9. An interrupted sync (in a store of its own, so the blob count is its
#    own). The embedded store makes blobs visible in batches of 256 MiB;
#    once the first batch is, the gateway is frozen (SIGSTOP) with well over
#    the 96 MiB read-ahead window still to come, so the sync cannot finish,
#    and sealvol is killed. The re-run stores only what the first did not.
export SEALVOL_HOME=$WORK/store-big
head -c 600000000 /dev/urandom >"$WORK/big.bin"
s3 s3 cp --quiet "$WORK/big.bin" s3://models/big/big.bin
rgw_pid=$(pgrep -f "radosgw -c $RGW_CONF" | head -1)
"$SEALVOL" sync s3://models/big acme/big --endpoint "$S3_ENDPOINT" --fetch-threads 1 \
  >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1500); do
  n=$(find "$SEALVOL_HOME/blobs" -type f ! -name '.tmp-*' 2>/dev/null | wc -l)
  [ "$n" -gt 20 ] && break
  sleep 0.02
done
kill -STOP "$rgw_pid"
sleep 0.5
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
kill -CONT "$rgw_pid"
expect_exit 3 sv resolve acme/big
expect_exit 0 sv sync s3://models/big acme/big --endpoint "$S3_ENDPOINT" --json
expect_eq "after the kill: right bytes" "$(json digest)" "$(mkdir -p "$WORK/b" && cp "$WORK/big.bin" "$WORK/b/" && sv digest "$WORK/b")"
reused=$(json reused_bytes)
if [ "$reused" -gt 0 ]; then pass; else fail "the re-run reused nothing"; fi
expect_exit 0 sv verify acme/big
finish
