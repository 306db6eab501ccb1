#!/usr/bin/env bash
# Installs, with apt, the Debian 12 packages perfhive needs that this machine lacks. Idempotent:
# installs nothing when everything is present. Needs root (or sudo).
# Usage: install-deps.sh [--list] [GROUP...]   (--list prints the groups' packages, installs none)
#   build    building and running perfhive (what scripts/demo.sh needs)
#   core     build, and what the tests need (the default; scripts/test.sh)
#   windows  MinGW-w64 and Wine, for the Windows agent's cross build and its tests
# The tests need smbd, Prometheus and Alertmanager (scripts/side-by-side.sh also
# VictoriaMetrics) to start private instances of their own; their Debian packages would start
# system services (smbd on port 445, Prometheus on 9090, Alertmanager on 9093, VictoriaMetrics
# on 8428) that nothing asked for, so they are installed with their services kept from
# starting, and left disabled.
set -euo pipefail

build_packages=(
  build-essential cmake ninja-build pkg-config
  libcli11-dev nlohmann-json3-dev
  libzstd-dev libsqlite3-dev libssl-dev      # wire (zstd), store (SQLite), port (SHA-256)
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc  # proto, server
  libasio-dev libtomlplusplus-dev openssl
  libsnappy-dev libcurl4-openssl-dev         # export/: remote-write compression and HTTP
  libcpp-httplib-dev                         # export/: HTTP server
  libjs-chart.js                             # the server's web console embeds Chart.js
  libsmbclient-dev                           # sources/msrrp: SMB2/3 to \PIPE\winreg (GPL-3+)
  unicode-data                               # CaseFolding.txt: perfdata's case folding table
)
test_packages=(
  clang libclang-rt-14-dev                   # libFuzzer and the sanitizer runtimes
  libgtest-dev libgmock-dev libbenchmark-dev googletest
  prometheus                                 # export/'s end-to-end tests (prometheus, promtool)
  victoria-metrics                           # scripts/side-by-side.sh (a remote-write receiver)
  prometheus-alertmanager                    # server/alerts: alerts delivered to a real one
  samba libnss-wrapper libtdb-dev            # msrrp e2e tests: a private smbd with test data
  dpkg-dev help2man lintian iproute2         # the Debian packages (scripts/test-packages.sh)
  chromium chromium-driver python3-selenium  # browser tests of the web console
  python3-grpcio python3-protobuf            # tests/e2e/hostile: attacks spoken in gRPC from Python
  ccache                                     # scripts/test.sh: a compiler cache kept across clones
  clang-format git curl                      # scripts/check-format.sh; side-by-side.sh
)
# The system services the packages above would start, by package.
declare -A services=([samba]="smbd nmbd samba-ad-dc" [prometheus]="prometheus"
                     [victoria-metrics]="victoria-metrics"
                     [prometheus-alertmanager]="prometheus-alertmanager")

list_only=0
if [[ ${1:-} == --list ]]; then
  list_only=1
  shift
fi
groups=("${@:-core}")
packages=()
for group in "${groups[@]}"; do
  case "$group" in
    build) packages+=("${build_packages[@]}") ;;
    core) packages+=("${build_packages[@]}" "${test_packages[@]}") ;;
    windows)
      # dpkg-dev, perl, python3 and unicode-data: scripts/build-windows-deps.sh unpacks Debian's
      # source packages and makes re2's generated tables. wixl, msitools and MinGW's binutils:
      # scripts/build-msi.sh makes the agent's MSI; the MSI's tests read it with msiinfo.
      packages+=(g++-mingw-w64-x86-64-posix wine64 wine dpkg-dev perl python3 unicode-data
                 wixl msitools binutils-mingw-w64-x86-64) ;;
    *) echo "install-deps: unknown group '$group'" >&2; exit 2 ;;
  esac
done

if ((list_only)); then
  printf '%s\n' "${packages[@]}" | sort -u
  exit 0
fi
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

# Services of the packages being installed: kept from starting while they install (Debian's
# policy-rc.d protocol, which invoke-rc.d and deb-systemd-invoke honour), disabled after.
quiet_units=()
for p in "${missing[@]}"; do
  [[ -n ${services[$p]:-} ]] && quiet_units+=(${services[$p]})
done
policy=/usr/sbin/policy-rc.d
placed_policy=0
if ((${#quiet_units[@]})) && [[ ! -e $policy ]]; then
  printf '#!/bin/sh\n# install-deps.sh: no service starts while perfhive installs its test peers\nexit 101\n' |
    $sudo tee "$policy" >/dev/null
  $sudo chmod 755 "$policy"
  placed_policy=1
fi
trap '((placed_policy)) && $sudo rm -f "$policy"' EXIT

$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"

for unit in "${quiet_units[@]}"; do
  if [[ -d /run/systemd/system ]]; then
    $sudo systemctl disable --now "$unit" >/dev/null 2>&1 || true
  elif [[ -x /etc/init.d/$unit ]]; then
    $sudo update-rc.d "$unit" disable >/dev/null 2>&1 || true
  fi
done
((${#quiet_units[@]})) && echo "install-deps: left disabled and stopped: ${quiet_units[*]}"
exit 0
