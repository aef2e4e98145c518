#!/usr/bin/env bash
# A registry on loopback: publish from "machine A", mount and pull on
# "machine B" (each with its own config, store and cache), copy between
# stores, and a server restart in the middle of a mount's reads.
source "$(dirname "$0")/lib.sh"

printf '%s\n' \
  "tok-alice-0123456789abcdef  alice  write:acme/*" \
  "tok-bob-0123456789abcdef    bob    read:acme/*" >"$WORK/tokens"
start_server registry "$WORK/server" --listen 127.0.0.1:0 --tokens "$WORK/tokens"

# Machine A: its own home, a config file naming the registry.
mkdir -p "$WORK/a/.config/sealvol" "$WORK/b"
cat >"$WORK/a/.config/sealvol/config.toml" <<CFG
remote = "team"
[remotes.team]
url = "$URL"
token = "tok-alice-0123456789abcdef"
CFG
a() { HOME=$WORK/a SEALVOL_HOME=$WORK/a/store SEALVOL_CACHE_DIR=$WORK/a/cache "$SEALVOL" "$@"; }
# Machine B: no config, the remote and token from the environment.
b() {
  HOME=$WORK/b SEALVOL_HOME=$WORK/b/store SEALVOL_CACHE_DIR=$WORK/b/cache \
    SEALVOL_REMOTE=$URL SEALVOL_TOKEN=tok-bob-0123456789abcdef "$SEALVOL" "$@"
}

"$GENMODEL" "$WORK/model" --size 40000000 --seed 11 >/dev/null
mkdir -p "$WORK/model/sub/empty" && echo tokenizer >"$WORK/model/sub/tok.json"
ln -s sub/tok.json "$WORK/model/link.json"
expect_exit 0 a publish "$WORK/model" acme/llama:v1 --json -q
digest=$(json digest)
expect_eq "first publish uploads everything" "$(json new_bytes)" "$(json bytes)"
[ ! -e "$WORK/a/store/meta.db" ] && pass || fail "machine A's embedded store was used"

# A second publish of the same tree uploads nothing.
expect_exit 0 a publish "$WORK/model" acme/llama:v1b --json -q --no-cache
expect_eq "re-publish uploads nothing" "$(json new_bytes)" 0
expect_eq "same digest" "$(json digest)" "$digest"

# Machine B sees it, with alice recorded as the actor.
expect_exit 0 b resolve acme/llama:v1
expect_eq "resolve on B" "$OUT" "$digest"
expect_exit 0 b history acme/llama:v1 --json
expect_contains "history names the token's owner" "$OUT" '"actor": "alice"'
expect_exit 0 b volumes
expect_contains "volumes on B" "$OUT" "acme/llama"

# Mount on B and compare every byte, type and link with the source.
mkdir -p "$WORK/mnt"
expect_exit 0 b mount acme/llama:v1 "$WORK/mnt" -q
(cd "$WORK/model" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$WORK/want.sums"
(cd "$WORK/mnt" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$WORK/got.sums"
cmp -s "$WORK/want.sums" "$WORK/got.sums" && pass || fail "mounted bytes differ from the source"
expect_eq "symlink" "$(readlink "$WORK/mnt/link.json")" "sub/tok.json"
[ -d "$WORK/mnt/sub/empty" ] && pass || fail "empty directory missing"
expect_exit 0 b stats "$WORK/mnt" --json
fetched=$(json bytes_fetched)
[ "$fetched" -ge 40000000 ] && pass || fail "mount fetched only $fetched bytes"
b stats "$WORK/mnt" >&2; b umount "$WORK/mnt" -q

# Pull and verify on B.
expect_exit 0 b pull acme/llama:v1 "$WORK/pulled" -q
diff -r "$WORK/model" "$WORK/pulled" >/dev/null && pass || fail "pulled tree differs"
expect_exit 0 b verify acme/llama:v1

# Copy: B's embedded store <- registry, then registry -> another volume.
expect_exit 0 b copy "$URL::acme/llama:v1" local:: --json
expect_eq "copy to local: all blobs" "$(json blobs_copied)" "$(json blobs)"
expect_exit 0 b --remote local verify acme/llama:v1
expect_exit 0 b copy "$URL::acme/llama:v1" local:: --json
expect_eq "second copy transfers nothing" "$(json blobs_copied)" 0
expect_exit 6 b copy local::acme/llama:v1 "$URL::acme/other"
expect_contains "bob may not write" "$ERR" "may not write"
expect_exit 0 a copy "$URL::acme/llama:v1" "$URL::acme/llama-copy:prod" --json
expect_eq "copy within a namespace transfers nothing" "$(json blobs_copied)" 0

# A server restart while a mount reads: the reads ride it out.
expect_exit 0 b mount acme/llama:v1 "$WORK/mnt" -q --prefetch none --cache-dir "$WORK/b/cache2" \
  --retry-for 30
first=$(ls "$WORK/mnt" | grep -v sub | head -1)
head -c 1000000 "$WORK/mnt/$first" >/dev/null
kill -9 "$SERVER_PID"
(sleep 1.5; start_server registry "$WORK/server" --listen "127.0.0.1:$PORT" --tokens "$WORK/tokens") &
restarter=$!
(cd "$WORK/mnt" && sha256sum --quiet -c "$WORK/want.sums") && pass || fail "reads across a server restart"
wait $restarter
expect_exit 0 b stats "$WORK/mnt" --json
retries=$(json fetch_retries)
echo "fetch retries during the restart: $retries"
[ "$retries" -ge 1 ] && pass || fail "no retry was needed: the restart was not exercised"
b stats "$WORK/mnt" >&2; b umount "$WORK/mnt" -q

finish
