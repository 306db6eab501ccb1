#!/usr/bin/env bash
# The Windows build and its tests: cross-compiles perfdata, the agent (perfhive-agent.exe, with
# gRPC, Protobuf and zstd built for MinGW from Debian's sources by build-windows-deps.sh) and the
# test executables with MinGW-w64, and runs them under Wine through CTest; builds the agent's MSI
# (and a second one with a higher version, to upgrade to); then runs the end-to-end tests where
# the Windows agent, under Wine, streams to a Linux perfhive-server, run by hand, as a service,
# and installed, upgraded and removed by msiexec. Installs MinGW-w64 and Wine when missing. The
# Wine prefix lives in the build directory (build/mingw; PERFHIVE_WINDOWS_BUILD_DIR and
# PERFHIVE_LINUX_BUILD_DIR name others, relative to the repository).
#
# Usage: scripts/test-windows.sh          all of it
#        scripts/test-windows.sh build    only the builds, up to the MSIs (scripts/test.sh runs
#                                         this in the background, then all of it: no test runs
#                                         twice, and the builds are then up to date)
set -euo pipefail
case ${1:-} in
  "" | build) ;;
  *) echo "usage: $0 [build]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
source scripts/stages.sh
# scripts/test.sh sets PERFHIVE_COMPILER_LAUNCHER (ccache) for its builds; this one uses it too.
launcher=()
[[ -z ${PERFHIVE_COMPILER_LAUNCHER:-} ]] || launcher=(
  -DCMAKE_C_COMPILER_LAUNCHER="$PERFHIVE_COMPILER_LAUNCHER"
  -DCMAKE_CXX_COMPILER_LAUNCHER="$PERFHIVE_COMPILER_LAUNCHER")

scripts/install-deps.sh core windows
build=${PERFHIVE_WINDOWS_BUILD_DIR:-build/mingw}
export WINEPREFIX="$PWD/$build/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$build"
if [[ ! -f $WINEPREFIX/system.reg ]]; then
  stage "creating the Wine prefix"
  wineboot -i >/dev/null 2>&1
  wineserver -w
fi

stage "gRPC, Protobuf and zstd for MinGW-w64 (from Debian's source packages, cached)"
deps=$(scripts/build-windows-deps.sh)
echo "   $deps"

# Line tables, not full debug information, as in scripts/test.sh's builds: a crash's stack still
# reads as functions and lines from the debug file beside the MSI, and each file compiles in two
# thirds of the time.
stage "Windows cross build (MinGW-w64, -Werror)"
# CMake keeps the paths it found in its cache: a build folder configured against an earlier prefix
# of the libraries (another recipe) would go on compiling and linking with that one.
if [[ -f $build/CMakeCache.txt ]] &&
  ! grep -qxF "PERFHIVE_WINDOWS_DEPS:UNINITIALIZED=$deps" "$build/CMakeCache.txt"; then
  rm -f "$build/CMakeCache.txt"
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DPERFHIVE_WERROR=ON -DPERFHIVE_WINDOWS_DEPS="$deps" \
  "${launcher[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"

stage "the agent's MSI (wixl), and one with a higher version to upgrade to"
cmake --build "$build" --target msi
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
IFS=. read -r major minor patch <<<"$version"
next="$major.$minor.$((patch + 1))"
scripts/build-msi.sh --exe "$build/agent/perfhive-agent.exe" --version "$next" \
  --output-dir "$build/msi-upgrade"
if [[ ${1:-} == build ]]; then
  print_stage_times "scripts/test-windows.sh build"
  exit 0
fi

# One persistent wineserver for all tests (each test .exe then starts in ~0.1 s, not ~2.7 s),
# with Wine's helper services started here, just before CTest: started by a test, they would
# hold CTest's output pipe open and CTest would wait for them until its timeout.
stage "Windows tests under Wine"
wineserver -p
trap 'wineserver -k || true' EXIT
wine cmd.exe /c exit </dev/null >/dev/null 2>&1
# scripts/test.sh counts the runs' JUnit reports (PERFHIVE_JUNIT_DIR), skips apart from passes.
junit() { [[ -z ${PERFHIVE_JUNIT_DIR:-} ]] || echo "--output-junit $PERFHIVE_JUNIT_DIR/windows-$1.xml"; }
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 300 $(junit unit)

stage "the Windows agent and its MSI under Wine, shipping to a Linux perfhive-server"
linux=${PERFHIVE_LINUX_BUILD_DIR:-build/release}
[[ -f $linux/build.ninja ]] || cmake -S . -B "$linux" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPERFHIVE_WERROR=ON "${launcher[@]}" >/dev/null
cmake --build "$linux" -j "$(nproc)" --target wine_e2e_tests perfhive-server perfhive
PERFHIVE_WINDOWS_AGENT="$PWD/$build/agent/perfhive-agent.exe" \
  PERFHIVE_WINDOWS_MSI="$PWD/$build/perfhive-agent-$version-x64.msi" \
  PERFHIVE_WINDOWS_MSI_UPGRADE="$PWD/$build/msi-upgrade/perfhive-agent-$next-x64.msi" \
  ctest --test-dir "$linux" --output-on-failure --label-regex wine --timeout 600 $(junit e2e)
print_stage_times scripts/test-windows.sh
