#!/usr/bin/env bash
# SigV4 signing and presigning against a real S3 engine: a single-node
# Ceph cluster with the RADOS Gateway (tests/fixtures/ceph_rgw.sh).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../fixtures/ceph_rgw.sh"
trap 'rgw_stop; cleanup_mounts; stop_servers; rm -rf "$WORK"' EXIT
if ! rgw_start "$WORK/ceph"; then
  fail "the RADOS Gateway did not start"
  finish
  exit 1
fi
if "${S3_RGW_TEST:?set S3_RGW_TEST to the s3_rgw_test binary}" >"$WORK/gtest.out" 2>&1; then
  pass
else
  fail "s3_rgw_test against the gateway:"
  grep -E "Failure|Expected|Which|actual|FAILED|rgw_test.cc" "$WORK/gtest.out" | head -40 >&2
fi
expect_contains "every case ran" "$(cat "$WORK/gtest.out")" "[  PASSED  ] 3 tests."
finish
