#!/usr/bin/env bash
# The Windows build and its tests: cross-compiles perfdata, the agent (perfhive-agent.exe, with
# gRPC, Protobuf and zstd built for MinGW from Debian's sources by build-windows-deps.sh) and the
# test executables with MinGW-w64, and runs them under Wine through CTest; then runs the
# end-to-end tests where the Windows agent, under Wine, streams to a Linux perfhive-server.
# Installs MinGW-w64 and Wine when missing. The Wine prefix lives in the build directory
# (build/mingw).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh core windows
build=build/mingw
export WINEPREFIX="$PWD/$build/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$build"
if [[ ! -f $WINEPREFIX/system.reg ]]; then
  echo "== creating the Wine prefix"
  wineboot -i >/dev/null 2>&1
  wineserver -w
fi

echo "== gRPC, Protobuf and zstd for MinGW-w64 (from Debian's source packages, cached)"
deps_started=$SECONDS
deps=$(scripts/build-windows-deps.sh)
echo "   $deps ($((SECONDS - deps_started)) s)"

echo "== Windows cross build (MinGW-w64, -Werror)"
cmake -S . -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFHIVE_WERROR=ON -DPERFHIVE_WINDOWS_DEPS="$deps" >/dev/null
cmake --build "$build" -j "$(nproc)"

# One persistent wineserver for all tests (each test .exe then starts in ~0.1 s, not ~2.7 s),
# with Wine's helper services started here, just before CTest: started by a test, they would
# hold CTest's output pipe open and CTest would wait for them until its timeout.
wineserver -p
trap 'wineserver -k || true' EXIT
wine cmd.exe /c exit </dev/null >/dev/null 2>&1
# scripts/test.sh counts the runs' JUnit reports (PERFHIVE_JUNIT_DIR), skips apart from passes.
junit() { [[ -z ${PERFHIVE_JUNIT_DIR:-} ]] || echo "--output-junit $PERFHIVE_JUNIT_DIR/windows-$1.xml"; }
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 300 $(junit unit)

echo "== the Windows agent under Wine streaming to a Linux perfhive-server"
linux=build/release
[[ -f $linux/build.ninja ]] || cmake -S . -B "$linux" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPERFHIVE_WERROR=ON >/dev/null
cmake --build "$linux" -j "$(nproc)" --target wine_e2e_tests perfhive-server perfhive
PERFHIVE_WINDOWS_AGENT="$PWD/$build/agent/perfhive-agent.exe" \
  ctest --test-dir "$linux" --output-on-failure --label-regex wine --timeout 600 $(junit e2e)
echo "== Windows build and tests: ${SECONDS} s"
