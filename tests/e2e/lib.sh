# Shared helpers for the end-to-end tests: each test script drives the real
# sealvol binary against a fresh store in a scratch directory.
#   usage in a test: source lib.sh; ...; finish
set -u
SEALVOL=${SEALVOL:?set SEALVOL to the sealvol binary}
GENMODEL=${GENMODEL:?set GENMODEL to the sealvol-genmodel binary}
WORK=$(mktemp -d /tmp/sealvol-e2e-XXXXXX)
export SEALVOL_HOME=$WORK/store
# Detaches any mount a test left under $WORK before removing it.
cleanup_mounts() {
  local mp
  for mp in $(awk -v w="$WORK" 'index($2, w) == 1 {print $2}' /proc/mounts); do
    umount -l "$mp" 2>/dev/null || fusermount3 -u -z "$mp" 2>/dev/null || true
  done
}
# Every server a test started (also from subshells) runs with a port file
# under $WORK.
stop_servers() { pkill -9 -f "serve --port-file $WORK/" 2>/dev/null || true; }
trap 'cleanup_mounts; stop_servers; rm -rf "$WORK"' EXIT
PASSED=0
FAILED=0

pass() { PASSED=$((PASSED + 1)); }
fail() { FAILED=$((FAILED + 1)); echo "FAIL: $*" >&2; }

# expect_eq WHAT ACTUAL EXPECTED
expect_eq() {
  if [ "$2" == "$3" ]; then pass; else fail "$1: got '$2', want '$3'"; fi
}
# expect_contains WHAT HAYSTACK NEEDLE
expect_contains() {
  if [[ "$2" == *"$3"* ]]; then pass; else fail "$1: '$2' does not contain '$3'"; fi
}
# expect_exit CODE CMD... : runs CMD, checks its exit code, keeps its output
# in $OUT (stdout) and $ERR (stderr).
expect_exit() {
  local want=$1
  shift
  OUT=$("$@" 2>"$WORK/stderr")
  local got=$?
  ERR=$(cat "$WORK/stderr")
  if [ "$got" == "$want" ]; then
    pass
  else
    fail "exit code of '$*': got $got, want $want; stderr: $ERR"
  fi
}
# json FIELD: reads a top-level field from the JSON in $OUT.
json() {
  python3 -c 'import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print(json.dumps(v) if isinstance(v,(list,dict,bool)) or v is None else v)' "$1" <<<"$OUT"
}
sv() { "$SEALVOL" "$@"; }

# start_server NAME STORE [serve flags...]: runs `sealvol serve` on a free
# loopback port (or the one in --listen) with its log in $WORK/NAME.log;
# sets SERVER_PID, PORT and URL once it answers /healthz.
start_server() {
  local name=$1 store=$2
  shift 2
  rm -f "$WORK/$name.port"
  "$SEALVOL" --store "$store" serve --port-file "$WORK/$name.port" "$@" \
    >>"$WORK/$name.log" 2>&1 &
  SERVER_PID=$!
  local i
  for i in $(seq 100); do
    if [ -s "$WORK/$name.port" ]; then
      PORT=$(cat "$WORK/$name.port")
      URL=http://127.0.0.1:$PORT
      curl -sf "$URL/healthz" >/dev/null && return 0
      URL=https://127.0.0.1:$PORT  # serving with --tls-cert
      curl -sfk "$URL/healthz" >/dev/null && return 0
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "server $name did not start:" >&2
  cat "$WORK/$name.log" >&2
  return 1
}

# same_tree WHAT WANT_DIR GOT_DIR: every regular file's path and SHA-256
# match.
same_tree() {
  local a b
  a=$(cd "$2" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
  b=$(cd "$3" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
  if [ -n "$a" ] && [ "$a" == "$b" ]; then pass; else fail "$1: $3 differs from $2"; fi
}

# metric NAME_WITH_LABELS: a value from $URL/metrics (0 when absent).
metric() {
  curl -s "$URL/metrics" | awk -v m="$1" '$1 == m {print $2; f=1} END {if (!f) print 0}'
}

finish() {
  echo "$PASSED passed, $FAILED failed"
  if [ "$FAILED" -ne 0 ]; then
    # Mount daemons log what went wrong on their side.
    find "$WORK" -name '*.log' 2>/dev/null | while read -r f; do
      echo "--- $f" >&2
      tail -20 "$f" >&2
    done
  fi
  [ "$FAILED" -eq 0 ]
}
