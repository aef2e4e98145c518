#!/usr/bin/env bash
# A store on a full disk: publish fails with a clear error, nothing becomes
# visible, and once space is freed the store works again. Needs root (it
# mounts a small tmpfs); elsewhere it reports itself skipped.
source "$(dirname "$0")/lib.sh"

mkdir -p "$WORK/small"
if ! mount -t tmpfs -o size=24m tmpfs "$WORK/small" 2>/dev/null; then
  echo "skipped: cannot mount a tmpfs (needs root)"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
trap 'umount "$WORK/small" 2>/dev/null; rm -rf "$WORK"' EXIT
STORE="$WORK/small/store"
"$GENMODEL" "$WORK/big" --size 60000000 --seed 4 >/dev/null
mkdir -p "$WORK/tiny" && echo '{"ok":true}' >"$WORK/tiny/config.json"

expect_exit 1 sv --store "$STORE" publish "$WORK/big" acme/big --compress none
expect_contains "names the cause" "$ERR" "No space left on device"
expect_exit 3 sv --store "$STORE" resolve acme/big
expect_exit 0 sv --store "$STORE" gc --grace 0 --json
expect_eq "temp files swept" "$(find "$STORE/blobs" -name '.tmp-*' | wc -l)" 0
expect_exit 0 sv --store "$STORE" publish "$WORK/tiny" acme/tiny
expect_exit 0 sv --store "$STORE" verify acme/tiny
finish
