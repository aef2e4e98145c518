#!/usr/bin/env bash
# Installs the Debian packages sealvol needs to build and test, skipping any
# already present. Usage: scripts/install-deps.sh [build|test|bench|fuzz]...
# Runs apt-get as root, or through sudo when not root.
set -euo pipefail

build_pkgs=(build-essential cmake ninja-build pkg-config libssl-dev libzstd-dev libyaml-cpp-dev
  libfuse3-dev fuse3
  libsqlite3-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libboost1.81-dev libcurl4-openssl-dev libtomlplusplus-dev libpq-dev)
test_pkgs=(libgtest-dev libgmock-dev python3 python3-numpy sqlite3 curl openssl
  ceph-mon ceph-osd radosgw ceph-common awscli postgresql postgresql-client)
fuzz_pkgs=(clang libclang-rt-14-dev)
bench_pkgs=(libbenchmark-dev casync restic hyperfine nginx-light wrk curl awscli
  ceph-mon ceph-osd radosgw ceph-common postgresql postgresql-client)

# Test servers from the npm registry, installed under .deps/npm (not
# globally): azurite, Azure's own Blob emulator. 3.35 is the newest that
# runs on Debian 12's nodejs 18 (3.36 and later want node 21+).
test_npm=(azurite@3.35.0)
ROOT=$(cd "$(dirname "$0")/.." && pwd)

want=()
npm_pkgs=()
[ $# -eq 0 ] && set -- build
for group in "$@"; do
  case "$group" in
    build) want+=("${build_pkgs[@]}") ;;
    test) want+=("${build_pkgs[@]}" "${test_pkgs[@]}"); npm_pkgs+=("${test_npm[@]}") ;;
    fuzz) want+=("${fuzz_pkgs[@]}") ;;
    bench) want+=("${build_pkgs[@]}" "${bench_pkgs[@]}") ;;
    *) echo "install-deps: unknown group '$group' (build|test|bench|fuzz)" >&2; exit 2 ;;
  esac
done

# npm comes with Debian's nodejs; a machine with another nodejs keeps it.
if [ ${#npm_pkgs[@]} -gt 0 ] && ! command -v npm >/dev/null; then
  want+=(nodejs npm)
fi

install_npm() {
  local p
  for p in "${npm_pkgs[@]}"; do
    grep -qs "\"version\": \"${p##*@}\"" \
      "$ROOT/.deps/npm/node_modules/${p%@*}/package.json" && continue
    echo "install-deps: npm install $p" >&2
    npm install --prefix "$ROOT/.deps/npm" --no-audit --no-fund --silent "$p" >/dev/null
  done
}

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  install_npm
  exit 0
fi

sudo=()
[ "$(id -u)" -ne 0 ] && sudo=(sudo)
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_npm
