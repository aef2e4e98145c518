#!/usr/bin/env bash
# Several processes publishing into one store at once all succeed, and
# every version they commit verifies.
source "$(dirname "$0")/lib.sh"

for s in 1 2 3; do
  "$GENMODEL" "$WORK/m$s" --size 40000000 --seed "$s" >/dev/null
done
# Two publishers share m1 (same blobs racing), the others differ.
pids=()
for job in "m1 acme/a:v1" "m1 acme/b:v1" "m2 acme/c:v1" "m3 acme/d:v1" "m2 acme/a:v2"; do
  set -- $job
  sv publish "$WORK/$1" "$2" -q --json >"$WORK/out-${2//[:\/]/_}" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do
  wait "$p" && pass || fail "a concurrent publish failed: $(cat "$WORK"/out-* )"
done
for ref in acme/a:v1 acme/b:v1 acme/c:v1 acme/d:v1 acme/a:v2; do
  expect_exit 0 sv verify "$ref"
done
expect_eq "same tree, same digest" "$(sv resolve acme/a:v1)" "$(sv resolve acme/b:v1)"
expect_exit 0 sv volumes
expect_eq "four volumes" "$(echo "$OUT" | wc -l)" 4
expect_exit 0 sv versions acme/a --json
expect_eq "acme/a has two versions" "$(json versions | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" 2
finish
