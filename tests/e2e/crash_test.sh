#!/usr/bin/env bash
# A publish killed with SIGKILL at any point leaves no visible version, and
# re-running it finishes by reusing what was already stored.
source "$(dirname "$0")/lib.sh"

"$GENMODEL" "$WORK/model" --size 300000000 --seed 9 >/dev/null
killed=0
for delay in 0.05 0.15 0.3 0.5 0.8 1.2; do
  sv publish "$WORK/model" acme/crash:v1 --compress zstd -q >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  if kill -9 "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null
    killed=$((killed + 1))
    # Killed mid-publish: the version and tag must not be visible.
    if sv resolve acme/crash:v1 >/dev/null 2>&1; then
      # Only acceptable if the publish had already committed.
      sv verify acme/crash:v1 >/dev/null 2>&1 && pass ||
        fail "after kill at ${delay}s a version is visible but does not verify"
      break
    else
      pass
    fi
    expect_exit 0 sv gc --dry-run --grace 0
  else
    wait "$pid"
  fi
done
[ "$killed" -ge 1 ] && pass || fail "no publish was killed (machine too fast?)"

expect_exit 0 sv publish "$WORK/model" acme/crash:v1 --compress zstd --json
[ "$(json reused_bytes)" -gt 0 ] && pass || fail "re-run reused nothing: $OUT"
expect_eq "all bytes accounted" $(( $(json new_bytes) + $(json reused_bytes) )) "$(json bytes)"
expect_exit 0 sv verify acme/crash:v1
expect_exit 0 sv digest "$WORK/model"
expect_eq "same digest as an uninterrupted run" "$OUT" "$(sv resolve acme/crash:v1)"
# Temp files left by the killed writers are swept by gc.
expect_exit 0 sv gc --grace 0 --json
leftover=$(find "$SEALVOL_HOME/blobs" -name '.tmp-*' | wc -l)
expect_eq "no temp files after gc" "$leftover" 0
expect_exit 0 sv verify acme/crash:v1

# A pull killed mid-way leaves no partial file under a final name, and the
# next pull finishes and removes the temp files the killed one left.
sv pull acme/crash:v1 "$WORK/out" -q &
pid=$!
sleep 0.3
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if [ -e "$WORK/out/model-00001-of-00001.safetensors" ]; then
  cmp -s "$WORK/model/model-00001-of-00001.safetensors" \
    "$WORK/out/model-00001-of-00001.safetensors" && pass ||
    fail "a killed pull left a partial file under its final name"
fi
expect_exit 0 sv pull acme/crash:v1 "$WORK/out"
diff -r "$WORK/model" "$WORK/out" >/dev/null && pass || fail "re-pulled tree differs"
expect_eq "no temp files left in the pull target" "$(find "$WORK/out" -name '.tmp-*' | wc -l)" 0
finish
