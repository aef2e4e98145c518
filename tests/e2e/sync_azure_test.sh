#!/usr/bin/env bash
# `sealvol sync az://…` against azurite, Azure's own Blob emulator (npm):
# Shared Key, SAS, connection strings, paging, incremental re-syncs.
source "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures" && pwd)
source "$FIX/azurite.sh"
trap 'azurite_stop; cleanup_mounts; stop_servers; rm -rf "$WORK"' EXIT
if ! azurite_start "$WORK/azurite"; then
  fail "azurite did not start"
  finish
  exit 1
fi
export SEALVOL_RETRY_FOR=2
unset AZURE_STORAGE_CONNECTION_STRING AZURE_STORAGE_KEY AZURE_STORAGE_SAS_TOKEN AZURE_STORAGE_BEARER_TOKEN
azput() { python3 "$FIX/az_put.py" "$AZ_ENDPOINT" "$AZ_ACCOUNT" "$AZ_KEY" "$@"; }
SRC="az://$AZ_ACCOUNT/models/llama"

M=$WORK/model
mkdir -p "$M/tokenizer"
head -c 6000000 /dev/urandom >"$M/model-00001.safetensors"
head -c 4000000 /dev/urandom >"$M/model-00002.safetensors"
echo '{"hidden": 64}' >"$M/config.json"
echo vocab >"$M/tokenizer/read me+é.json"
azput mkcontainer models
azput upload models llama/ "$M"
azput put models elsewhere.txt "$M/config.json"

# 1. Shared Key from AZURE_STORAGE_KEY: byte-identical to a local publish,
#    with provenance.
expect_exit 0 env AZURE_STORAGE_KEY="$AZ_KEY" "$SEALVOL" sync "$SRC" acme/az \
  --endpoint "$AZ_ENDPOINT" --json
expect_eq "azure digest = local digest" "$(json digest)" "$(sv digest "$M")"
expect_eq "only the prefix" "$(json files)" 4
expect_exit 0 sv versions acme/az --json
expect_contains "provenance" "$OUT" "\"uri\": \"az://$AZ_ACCOUNT/models/llama/\""

# 2. A connection string with BlobEndpoint (no --endpoint); a re-sync after
#    one shard changed downloads only that shard.
CS="DefaultEndpointsProtocol=http;AccountName=$AZ_ACCOUNT;AccountKey=$AZ_KEY;BlobEndpoint=$AZ_ENDPOINT;"
head -c 4000000 /dev/urandom >"$M/model-00002.safetensors"
azput put models llama/model-00002.safetensors "$M/model-00002.safetensors"
expect_exit 0 env AZURE_STORAGE_CONNECTION_STRING="$CS" "$SEALVOL" sync "$SRC" acme/az --json
expect_eq "incremental digest" "$(json digest)" "$(sv digest "$M")"
expect_eq "incremental: only the changed shard" "$(json downloaded_bytes)" 4000000
expect_eq "incremental: the rest unchanged" "$(json unchanged_files)" 3

# 3. A SAS token with list and read; one without list is refused.
SAS=$(azput sas rl)
expect_exit 0 env AZURE_STORAGE_SAS_TOKEN="$SAS" "$SEALVOL" sync "$SRC" acme/az:sas \
  --endpoint "$AZ_ENDPOINT" --full --json
expect_eq "SAS digest" "$(json digest)" "$(sv digest "$M")"
expect_eq "SAS downloaded everything" "$(json downloaded_bytes)" 10000021
READONLY=$(azput sas r)
expect_exit 6 env AZURE_STORAGE_SAS_TOKEN="$READONLY" "$SEALVOL" sync "$SRC" acme/az:x \
  --endpoint "$AZ_ENDPOINT"
expect_contains "SAS without list" "$ERR" "HTTP 403"
EXPIRED=$(azput sas rl 2001-01-01T00:00:00Z)
expect_exit 6 env AZURE_STORAGE_SAS_TOKEN="$EXPIRED" "$SEALVOL" sync "$SRC" acme/az:x \
  --endpoint "$AZ_ENDPOINT"
if [[ "$ERR" == *sig=* ]]; then fail "the SAS signature is in the error"; else pass; fi

# 4. A wrong key: a clear 403 naming the error, the key never shown,
#    nothing committed. No credentials at all: what to set.
WRONG=$(printf 'not-the-key-%.0s' 1 2 3 | base64 -w0)
expect_exit 6 env AZURE_STORAGE_KEY="$WRONG" "$SEALVOL" sync "$SRC" acme/az:bad \
  --endpoint "$AZ_ENDPOINT"
expect_contains "wrong key" "$ERR" "HTTP 403"
if [[ "$ERR" == *"$WRONG"* ]]; then fail "the key is in the error"; else pass; fi
expect_exit 3 sv resolve acme/az:bad
expect_exit 6 sv sync "$SRC" acme/az:x --endpoint "$AZ_ENDPOINT"
expect_contains "no credentials" "$ERR" "AZURE_STORAGE_CONNECTION_STRING"
expect_exit 2 env AZURE_STORAGE_CONNECTION_STRING="AccountName=other;AccountKey=$AZ_KEY" \
  "$SEALVOL" sync "$SRC" acme/az:x
expect_contains "connection string for another account" "$ERR" "'other'"

# 5. Paging: more blobs than one List Blobs page holds (5000 max per page
#    on Azure; sealvol asks for 1000).
mkdir -p "$WORK/many"
for i in $(seq 1 1200); do echo "$i" >"$WORK/many/f$i.txt"; done
azput upload models many/ "$WORK/many"
expect_exit 0 env AZURE_STORAGE_KEY="$AZ_KEY" "$SEALVOL" sync "az://$AZ_ACCOUNT/models/many" \
  acme/many --endpoint "$AZ_ENDPOINT" --json
expect_eq "every page" "$(json files)" 1200
expect_eq "paged digest" "$(json digest)" "$(sv digest "$WORK/many")"

# 6. Hostile names are refused before anything is read.
azput put models evil/../../x "$M/config.json" || true
azput put models evil2/a "$M/config.json"
azput put models evil2/a/b "$M/config.json"
expect_exit 2 env AZURE_STORAGE_KEY="$AZ_KEY" "$SEALVOL" sync "az://$AZ_ACCOUNT/models/evil2" \
  acme/evil --endpoint "$AZ_ENDPOINT"
expect_contains "file and folder" "$ERR" "also listed as a file"
finish
