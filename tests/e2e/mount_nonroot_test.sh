#!/usr/bin/env bash
# A mount by an ordinary user: libfuse mounts through the setuid
# fusermount3, `allow_other` is off, and `sealvol umount` unmounts through
# fusermount3 too. Runs as root to set the user up. Many containers make
# /dev/fuse root-only (0600); the test then works in a private mount
# namespace where a 0666 node of the same device is bound over /dev/fuse,
# so the host's device is left as it is.
source "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: needs root to run a mount as another user"
  exit 0
fi
chmod 755 "$WORK"
"$GENMODEL" "$WORK/src" --size 8000000 --seed 4 >/dev/null
sv publish "$WORK/src" user/m:v1 -q >/dev/null
mkdir -p "$WORK/mnt" "$WORK/home"
chown -R nobody:nogroup "$WORK"

cat >"$WORK/inner.sh" <<'INNER'
set -u
W=$1
SV=$2
if ! runuser -u nobody -- test -r /dev/fuse -a -w /dev/fuse; then
  mknod "$W/fuse" c 10 229 && chmod 666 "$W/fuse" && mount --bind "$W/fuse" /dev/fuse
fi
as_nobody() { runuser -u nobody -- env HOME="$W/home" SEALVOL_HOME="$W/store" "$@"; }
as_nobody "$SV" mount user/m:v1 "$W/mnt" >"$W/mount.out" 2>"$W/mount.err"
echo "mount_rc=$?"
echo "mounts=$(grep " $W/mnt " /proc/mounts)"
(cd "$W/src" && sha256sum ./*) >"$W/sums"
as_nobody bash -c "cd '$W/mnt' && sha256sum --quiet -c '$W/sums'" && echo "sums=ok"
# Without allow_other even root is kept out of another user's FUSE mount.
ls "$W/mnt" >/dev/null 2>&1 || echo "others=denied"
as_nobody "$SV" stats "$W/mnt" --json >"$W/stats.json" && echo "stats=ok"
as_nobody "$SV" umount "$W/mnt" >"$W/umount.out" 2>&1
echo "umount_rc=$?"
echo "left=$(grep -c " $W/mnt " /proc/mounts)"
INNER
unshare -m --propagation private bash "$WORK/inner.sh" "$WORK" "$SEALVOL" >"$WORK/result" 2>&1
r=$(cat "$WORK/result")
expect_contains "non-root mount succeeds ($(cat "$WORK/mount.err" 2>/dev/null))" "$r" "mount_rc=0"
expect_contains "mounted as the user" "$r" "user_id=65534"
[[ "$r" == *allow_other* ]] && fail "allow_other set for a non-root mount" || pass
expect_contains "bytes match" "$r" "sums=ok"
expect_contains "stats work" "$r" "stats=ok"
expect_contains "other users are kept out" "$r" "others=denied"
expect_contains "non-root umount succeeds" "$r" "umount_rc=0"
expect_contains "nothing left mounted" "$r" "left=0"
expect_contains "cache owned by the user" "$(stat -c %U "$WORK/home/.cache/sealvol/chunks")" "nobody"
finish
