#!/usr/bin/env bash
# The CLI end to end on the embedded store: publish, tag, inspect, diff,
# pull, verify, gc; --json output; exit codes; hostile input.
source "$(dirname "$0")/lib.sh"

"$GENMODEL" "$WORK/v1" --size 30000000 --seed 3 >/dev/null
"$GENMODEL" "$WORK/v2" --size 30000000 --seed 3 --variant 2 >/dev/null
mkdir -p "$WORK/v1/empty" "$WORK/v1/ckpt"
ln -s ../config.json "$WORK/v1/ckpt/config-link"
printf '#!/bin/sh\necho hi\n' >"$WORK/v1/run.sh" && chmod 755 "$WORK/v1/run.sh"

# --- publish and inspect ---
expect_exit 0 sv publish "$WORK/v1" acme/llm:v1 --json
D1=$(json digest)
expect_contains "digest form" "$D1" "sha256:"
expect_eq "files" "$(json files)" 4
expect_eq "new bytes on first publish" "$(json new_bytes)" "$(json bytes)"
expect_exit 0 sv digest "$WORK/v1"
expect_eq "digest DIR matches publish" "$OUT" "$D1"
expect_exit 0 sv resolve acme/llm:v1
expect_eq "resolve tag" "$OUT" "$D1"
expect_exit 3 sv resolve acme/llm
expect_contains "only the named tag moves" "$ERR" "no tag 'acme/llm:latest'"
expect_exit 0 sv publish "$WORK/v1" acme/llm
expect_eq "bare publish moves latest" "$(sv resolve acme/llm)" "$D1"
expect_exit 0 sv ls acme/llm:v1 --json
expect_eq "ls lists entries" "$(json entries | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" 6
expect_exit 0 sv ls "acme/llm@$D1"
expect_contains "ls shows mode 755" "$OUT" "755"
expect_contains "ls shows symlink" "$OUT" "ckpt/config-link -> ../config.json"
expect_exit 0 sv cat acme/llm:v1 config.json
expect_eq "cat" "$OUT" "$(cat "$WORK/v1/config.json")"
expect_exit 3 sv cat acme/llm:v1 nope.txt
expect_contains "cat missing path" "$ERR" "no 'nope.txt'"

# --- republish: nothing new; v2 adds little ---
expect_exit 0 sv publish "$WORK/v1" acme/llm:v1 --json
expect_eq "republish same digest" "$(json digest)" "$D1"
expect_eq "republish stores nothing" "$(json new_bytes)" 0
expect_exit 0 sv publish "$WORK/v2" acme/llm:v2 --json
D2=$(json digest)
NEW2=$(json new_bytes)
BYTES2=$(json bytes)
[ "$NEW2" -lt $((BYTES2 / 2)) ] && pass || fail "v2 stored $NEW2 of $BYTES2 bytes"
expect_exit 0 sv diff acme/llm:v1 acme/llm:v2 --json
expect_eq "diff new_bytes matches publish" "$(json new_bytes)" "$NEW2"
expect_contains "diff changed" "$(json changed)" "model-00001-of-00001.safetensors"
expect_contains "diff removed" "$(json removed)" "run.sh"

# --- listings ---
expect_exit 0 sv versions acme/llm --json
expect_eq "two versions" "$(json versions | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" 2
expect_contains "annotations record source" "$OUT" "file://$WORK/v1"
expect_exit 0 sv volumes
expect_eq "volumes" "$OUT" "acme/llm"
expect_exit 0 sv tags acme/llm
expect_contains "tags" "$OUT" "v2"

# --- tags: compare-and-swap, untag, history ---
expect_exit 0 sv tag "acme/llm@$D1" prod --expect none
expect_exit 5 sv tag acme/llm:v2 prod --expect none
expect_contains "CAS names current value" "$ERR" "$D1"
expect_exit 5 sv tag acme/llm:v2 prod --expect "$D2"
expect_exit 0 sv resolve acme/llm:prod
expect_eq "failed CAS leaves tag" "$OUT" "$D1"
expect_exit 5 sv tag acme/llm:v2 prod stable --expect "$D1"
expect_contains "multi-tag CAS checks all first" "$ERR" "stable"
expect_eq "no tag moved when one expectation fails" "$(sv resolve acme/llm:prod)" "$D1"
expect_exit 0 sv tag acme/llm:v2 prod --expect "$D1" --note "ship it"
expect_exit 0 sv tag acme/llm:v2 stable
expect_exit 0 sv resolve acme/llm:stable
expect_eq "tag moves several tags" "$OUT" "$D2"
expect_exit 0 sv untag acme/llm:stable
expect_exit 3 sv resolve acme/llm:stable
expect_exit 0 sv history acme/llm:prod --json
expect_contains "history has the note" "$OUT" "ship it"
expect_eq "history length" "$(json history | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" 2
expect_exit 0 sv history acme/llm:prod
expect_contains "history human form" "$OUT" "${D1:7:12} -> ${D2:7:12}"

# --- pull and verify ---
expect_exit 0 sv pull acme/llm:v1 "$WORK/out" --json
expect_eq "pull writes every file" "$(json files_written)" 4
diff -r "$WORK/v1" "$WORK/out" >/dev/null && pass || fail "pulled tree differs"
expect_eq "pulled symlink" "$(readlink "$WORK/out/ckpt/config-link")" "../config.json"
expect_eq "pulled mode" "$(stat -c %a "$WORK/out/run.sh")" 755
expect_exit 0 sv pull acme/llm:v1 "$WORK/out" --json
expect_eq "re-pull skips identical" "$(json files_skipped)" 4
expect_exit 0 sv verify "acme/llm@$D2"
expect_contains "verify ok" "$OUT" "all verified"

# Corrupt one chunk of v2 in the store: verify names the file and chunk.
CHUNK=$(ls -S "$SEALVOL_HOME"/blobs/sha256/*/* | head -1)
cp "$CHUNK" "$WORK/chunk.bak"
chmod u+w "$CHUNK" && printf 'garbage' | dd of="$CHUNK" bs=1 seek=100 conv=notrunc 2>/dev/null
expect_exit 4 sv verify acme/llm:v1 --json
expect_eq "verify reports not ok" "$(json ok)" false
expect_contains "verify names the file" "$OUT" "safetensors"
expect_exit 4 sv pull acme/llm:v1 "$WORK/out2"
expect_contains "pull names the chunk" "$ERR" "chunk"
[ ! -e "$WORK/out2/model-00001-of-00001.safetensors" ] && pass || fail "partial file left by pull"
cp "$WORK/chunk.bak" "$CHUNK"
expect_exit 0 sv verify acme/llm:v1

# --- gc ---
expect_exit 0 sv untag acme/llm:v2
expect_exit 0 sv gc --grace 0 --json
expect_eq "gc keeps versions (nothing unreferenced)" "$(json removed_blobs)" 0
mkdir -p "$WORK/junk" && head -c 3000000 /dev/urandom >"$WORK/junk/x"
# A blob nobody references: store it via a publish that we then cannot see.
expect_exit 0 sv --store "$WORK/store2" publish "$WORK/junk" tmp/junk
cp -r "$WORK/store2/blobs/sha256/." "$SEALVOL_HOME/blobs/sha256/"
expect_exit 0 sv gc --dry-run --grace 0 --json
[ "$(json removed_blobs)" -ge 1 ] && pass || fail "gc dry-run finds the orphan"
expect_exit 0 sv gc --grace 3600 --json
expect_eq "grace period protects young blobs" "$(json removed_blobs)" 0
expect_exit 0 sv gc --grace 0 --json
[ "$(json removed_blobs)" -ge 1 ] && pass || fail "gc removes the orphan"
expect_exit 0 sv verify acme/llm:v1
expect_exit 0 sv verify "acme/llm@$D2"

# --- bad input: clear errors, non-zero exit, nothing published ---
expect_exit 3 sv publish "$WORK/does-not-exist" acme/bad
expect_contains "missing dir" "$ERR" "does-not-exist"
mkdir -p "$WORK/fifo" && mkfifo "$WORK/fifo/pipe"
expect_exit 2 sv publish "$WORK/fifo" acme/bad
expect_contains "fifo refused" "$ERR" "'pipe': it is a FIFO"
mkdir -p "$WORK/esc/sub" && ln -s ../../../etc/passwd "$WORK/esc/sub/link"
expect_exit 2 sv publish "$WORK/esc" acme/bad
expect_contains "escaping symlink" "$ERR" "leaves the volume"
mkdir -p "$WORK/utf" && touch "$WORK/utf/$(printf 'bad\xffname')"
expect_exit 2 sv publish "$WORK/utf" acme/bad
expect_contains "bad utf-8" "$ERR" "not valid UTF-8"
expect_exit 2 sv publish "$WORK/v1" "Bad/Name"
expect_contains "bad volume" "$ERR" "bad volume name"
expect_exit 2 sv publish "$WORK/v1" acme/x --compress lz4
expect_exit 3 sv versions acme/bad
expect_exit 2 sv resolve "acme/llm@sha256:ABC"
expect_exit 2 sv resolve "acme/llm@sha256:../../etc"
expect_exit 3 sv resolve "acme/llm@sha256:$(printf '0%.0s' {1..64})"
# A file that changes while it is read.
"$GENMODEL" "$WORK/grow" --size 60000000 --seed 5 >/dev/null
( while :; do printf 'more bytes' >>"$WORK/grow/model-00001-of-00001.safetensors"; done ) &
writer=$!
sleep 0.2
expect_exit 2 sv publish "$WORK/grow" acme/grow
kill "$writer"; wait "$writer" 2>/dev/null
expect_contains "changing file named" "$ERR" "'model-00001-of-00001.safetensors' changed while it was being published"
expect_exit 3 sv resolve acme/grow
expect_exit 2 sv nosuchcommand
expect_exit 0 sv --help
expect_contains "help lists commands" "$OUT" "publish"
expect_exit 0 sv publish --help
expect_contains "publish help" "$OUT" "--compress"

finish
