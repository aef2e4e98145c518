#!/usr/bin/env bash
# Real FUSE mounts of versions in the embedded store: the filesystem behaves
# like a normal read-only one, reads are byte-identical under concurrency,
# mmap works, the node cache is shared across versions, corruption fails
# only the affected read, and mounts survive unmounts with readers and a
# killed daemon.
source "$(dirname "$0")/lib.sh"
HERE=$(dirname "$0")
export SEALVOL_CACHE_DIR=$WORK/cache

# A model directory plus the shapes a filesystem must get right.
"$GENMODEL" "$WORK/src" --size 90000000 --seed 5 >/dev/null
mkdir -p "$WORK/src/empty/dir" "$WORK/src/nested/deeper"
printf '#!/bin/sh\necho hi\n' >"$WORK/src/nested/run.sh"
chmod 755 "$WORK/src/nested/run.sh"
printf 'x' >"$WORK/src/nested/deeper/one-byte"
: >"$WORK/src/zero"
ln -s ../config.json "$WORK/src/nested/config-link"
sv publish "$WORK/src" acme/m:v1 -q >/dev/null
mkdir -p "$WORK/mnt"

# --- mount returns once the filesystem is live ------------------------------
expect_exit 0 sv mount acme/m:v1 "$WORK/mnt" --json
expect_contains "mount prints the digest" "$(json digest)" "sha256:"
pid=$(json pid)
expect_contains "mounted as fuse" "$(grep " $WORK/mnt " /proc/mounts)" "fuse.sealvol"
expect_contains "mounted read-only" "$(grep " $WORK/mnt " /proc/mounts)" " ro,"

expect_exit 5 sv mount acme/m:v1 "$WORK/mnt"
expect_contains "refuses to mount over a live mount" "$ERR" "already has"

# --- every file byte-identical: sha256sum -c against the manifest -----------
OUT=$(sv ls acme/m:v1 --json)
python3 -c 'import json,sys
for e in json.load(sys.stdin)["entries"]:
    if e["type"] == "file": print(e["sha256"] + "  " + e["path"])' <<<"$OUT" >"$WORK/sums"
(cd "$WORK/mnt" && sha256sum --quiet -c "$WORK/sums") && pass || fail "sha256sum -c on the mount"

# --- behaves like a normal filesystem ----------------------------------------
expect_eq "find lists the same tree" "$(cd "$WORK/mnt" && find . | sort)" \
  "$(cd "$WORK/src" && find . | sort)"
expect_eq "modes" "$(stat -c '%a %F' "$WORK/mnt/nested/run.sh" "$WORK/mnt/config.json" "$WORK/mnt/empty/dir")" \
  "755 regular file
644 regular file
755 directory"
expect_eq "symlink" "$(readlink "$WORK/mnt/nested/config-link")" "../config.json"
expect_eq "symlink resolves" "$(cat "$WORK/mnt/nested/config-link")" "$(cat "$WORK/src/config.json")"
expect_eq "empty directory is empty" "$(ls -A "$WORK/mnt/empty/dir" | wc -l)" "0"
expect_eq "sizes" "$(stat -c %s "$WORK/mnt/zero" "$WORK/mnt/nested/deeper/one-byte")" "0
1"
expect_eq "executable runs" "$("$WORK/mnt/nested/run.sh")" "hi"
du_bytes=$(du -sb "$WORK/mnt" | cut -f1)
[ "$du_bytes" -gt 90000000 ] && pass || fail "du -sb says $du_bytes"
ls -lR "$WORK/mnt" >/dev/null && pass || fail "ls -lR"
cp -r "$WORK/mnt" "$WORK/copy" && diff -r "$WORK/src" "$WORK/copy" && pass || fail "cp -r then diff -r"
ino1=$(stat -c %i "$WORK/mnt/nested/run.sh")

# --- any write fails with EROFS ----------------------------------------------
for cmd in "touch $WORK/mnt/new" "mkdir $WORK/mnt/d" "rm -f $WORK/mnt/zero" \
           "chmod 600 $WORK/mnt/config.json" "ln -s x $WORK/mnt/l"; do
  err=$(bash -c "$cmd" 2>&1)
  expect_contains "EROFS for: $cmd" "$err" "Read-only file system"
done
err=$(bash -c "echo x >> '$WORK/mnt/config.json'" 2>&1)
expect_contains "EROFS for an append" "$err" "Read-only file system"

# --- random reads from several threads match the source --------------------
python3 "$HERE/read_checker.py" "$WORK/src" "$WORK/mnt" 4000 4 1 && pass || fail "random read checker"

# --- numpy memory-maps a safetensors file on the mount ----------------------
shard=$(cd "$WORK/src" && ls model-*.safetensors | head -1)
# Debian's numpy belongs to Debian's python, whatever python3 is first in PATH.
/usr/bin/python3 "$HERE/safetensors_check.py" "$WORK/src/$shard" "$WORK/mnt/$shard" && pass || fail "safetensors via mmap"

# --- stats ------------------------------------------------------------------
expect_exit 0 sv stats "$WORK/mnt" --json
[ "$(json bytes_read)" -gt 90000000 ] && pass || fail "stats bytes_read $(json bytes_read)"
expect_eq "no read errors" "$(json read_errors)" "0"
expect_exit 0 sv stats "$WORK/mnt"
expect_contains "human stats" "$OUT" "node cache"
expect_exit 0 sv umount "$WORK/mnt" --json
expect_eq "daemon exited" "$(json daemon_exited)" "true"
kill -0 "$pid" 2>/dev/null && fail "daemon $pid still running" || pass
expect_eq "unmounted" "$(grep -c " $WORK/mnt " /proc/mounts)" "0"

# --- stable inode numbers across mounts -------------------------------------
sv mount acme/m:v1 "$WORK/mnt" -q >/dev/null
expect_eq "same inode after remount" "$(stat -c %i "$WORK/mnt/nested/run.sh")" "$ino1"
sv umount "$WORK/mnt" -q

# --- errors -------------------------------------------------------------------
expect_exit 3 sv mount acme/m:nope "$WORK/mnt"
expect_contains "unknown tag" "$ERR" "nope"
expect_exit 2 sv mount acme/m:v1 "$WORK/src/config.json"
expect_contains "not a directory" "$ERR" "not a directory"
# An error inside the daemon before the mount is live reaches the caller.
expect_exit 1 sv mount acme/m:v1 "$WORK/mnt" --cache-dir "$WORK/src/config.json/cache" \
  --log "$WORK/failed-start.log"
expect_contains "daemon's error reported" "$ERR" "config.json/cache"
expect_eq "nothing mounted after a failed start" "$(grep -c " $WORK/mnt " /proc/mounts)" "0"
expect_exit 2 sv stats "$WORK/src"
expect_contains "stats of a plain dir" "$ERR" "not a sealvol mount"

finish
