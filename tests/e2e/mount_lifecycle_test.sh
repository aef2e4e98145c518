#!/usr/bin/env bash
# Mount lifecycle: unmount with readers active, SIGTERM to a foreground
# mount, and a mount daemon killed with SIGKILL then mounted again over the
# same node cache.
source "$(dirname "$0")/lib.sh"
export SEALVOL_CACHE_DIR=$WORK/cache
mkdir -p "$WORK/mnt"
"$GENMODEL" "$WORK/src" --size 40000000 --seed 8 >/dev/null
sv publish "$WORK/src" acme/m:v1 -q >/dev/null
shard=$(cd "$WORK/src" && ls model-*.safetensors | head -1)
want=$(sha256sum <"$WORK/src/$shard" | cut -d' ' -f1)

# A reader that opens the file, says so (creates $2.opened), waits for the
# file $2 to appear, then reads the rest.
slow_reader() {
  python3 - "$1" "$2" <<'PY' &
import hashlib, os, sys, time
f = open(sys.argv[1], 'rb')
h = hashlib.sha256(f.read(1 << 20))
open(sys.argv[2] + '.opened', 'w').close()
while not os.path.exists(sys.argv[2]):
    time.sleep(0.02)
while True:
    b = f.read(1 << 20)
    if not b:
        break
    h.update(b)
print(h.hexdigest())
PY
}

# --- umount refuses while a file is open; --lazy detaches, reader finishes --
OUT=$(sv mount acme/m:v1 "$WORK/mnt" --json)
pid=$(json pid)
slow_reader "$WORK/mnt/$shard" "$WORK/go" >"$WORK/reader.out"
reader=$!
# Python can take a while to start on a loaded machine: wait for the open.
for _ in $(seq 1 600); do [ -e "$WORK/go.opened" ] && break; sleep 0.05; done
expect_exit 5 sv umount "$WORK/mnt"
expect_contains "busy message" "$ERR" "busy"
expect_exit 0 sv umount "$WORK/mnt" --lazy
expect_eq "detached at once" "$(grep -c " $WORK/mnt " /proc/mounts)" "0"
kill -0 "$pid" 2>/dev/null && pass || fail "daemon exited while a file was open"
touch "$WORK/go"
wait "$reader"
expect_eq "reader read the whole file correctly after detach" "$(cat "$WORK/reader.out")" "$want"
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$pid" 2>/dev/null && fail "daemon still running after its last file closed" || pass

# --- SIGTERM to a foreground mount unmounts cleanly -------------------------
# The binary itself, not the sv function, so that $! is its pid.
"$SEALVOL" mount -f acme/m:v1 "$WORK/mnt" --log "$WORK/fg.log" >/dev/null 2>&1 &
fg=$!
for _ in $(seq 1 100); do sv stats "$WORK/mnt" >/dev/null 2>&1 && break; sleep 0.05; done
cmp -s "$WORK/mnt/config.json" "$WORK/src/config.json" && pass || fail "foreground mount serves"
kill -TERM "$fg"
wait "$fg"
expect_eq "foreground mount exit status after SIGTERM" "$?" "0"
expect_eq "unmounted after SIGTERM" "$(grep -c " $WORK/mnt " /proc/mounts)" "0"
expect_contains "log says why" "$(cat "$WORK/fg.log")" "unmounting"

# --- kill -9 the daemon, mount again with the same cache --------------------
OUT=$(sv mount acme/m:v1 "$WORK/mnt" --json)
pid=$(json pid)
head -c 20000000 "$WORK/mnt/$shard" >/dev/null
kill -9 "$pid"
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
err=$(stat "$WORK/mnt" 2>&1)
expect_contains "dead mount is visible as such" "$err" "not connected"
expect_exit 0 sv mount acme/m:v1 "$WORK/mnt"
expect_contains "remount notices the dead mount" "$ERR" "dead mount"
got=$(sha256sum <"$WORK/mnt/$shard" | cut -d' ' -f1)
expect_eq "reads after remount" "$got" "$want"
OUT=$(sv stats "$WORK/mnt" --json)
[ "$(json disk_hits)" -gt 0 ] && pass || fail "node cache not reused after kill -9"
expect_eq "no bad cache files" "$(json disk_dropped_corrupt)" "0"
sv umount "$WORK/mnt" -q
# A stale mount can also be cleared with umount.
OUT=$(sv mount acme/m:v1 "$WORK/mnt" --json)
kill -9 "$(json pid)"
sleep 0.2
expect_exit 0 sv umount "$WORK/mnt"
expect_eq "stale mount cleared" "$(grep -c " $WORK/mnt " /proc/mounts)" "0"

finish
