#!/usr/bin/env bash
# Installs, with apt, the Debian 12 packages perfhive's build and tests need that this machine
# lacks. Idempotent: installs nothing when everything is present. Needs root (or sudo).
# Usage: install-deps.sh [GROUP...]   groups: core (default), windows (MinGW-w64 + Wine)
set -euo pipefail

groups=("${@:-core}")
packages=()
for group in "${groups[@]}"; do
  case "$group" in
    core)
      packages+=(
        build-essential cmake ninja-build pkg-config
        clang libclang-rt-14-dev            # libFuzzer and the sanitizer runtimes
        libgtest-dev libgmock-dev libbenchmark-dev googletest
        libcli11-dev nlohmann-json3-dev
        libzstd-dev libsqlite3-dev libssl-dev  # wire (zstd), store (SQLite), port (SHA-256)
        libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc  # proto, server
        libasio-dev libtomlplusplus-dev openssl
        libsnappy-dev libcurl4-openssl-dev    # export/: remote-write compression and HTTP
        prometheus                            # export/'s end-to-end tests (prometheus, promtool)
        libsmbclient-dev                      # sources/msrrp: SMB2/3 to \PIPE\winreg (GPL-3+)
        samba libnss-wrapper libtdb-dev       # msrrp e2e tests: a private smbd with test data
        unicode-data                        # CaseFolding.txt: perfdata's case folding table
      ) ;;
    windows)
      # dpkg-dev, perl, python3 and unicode-data: scripts/build-windows-deps.sh unpacks Debian's
      # source packages and makes re2's generated tables.
      packages+=(g++-mingw-w64-x86-64-posix wine64 wine dpkg-dev perl python3 unicode-data) ;;
    *) echo "install-deps: unknown group '$group'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
