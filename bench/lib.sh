# Helpers shared by the whole-command benchmark scripts.
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.4f}')"; }
gbps() { python3 -c "print(f'{$1 / $2 / 1e9:.3f}')"; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
# timed VAR CMD...: wall seconds of CMD into VAR.
timed() {
  local var=$1 t0 t1
  shift
  t0=$(now)
  "$@" >/dev/null
  t1=$(now)
  printf -v "$var" '%s' "$(secs "$t0" "$t1")"
}
