#!/usr/bin/env bash
# The test command: installs what is missing, then builds and runs every test twice, once in a
# normal optimised build with warnings as errors and once under ASan+UBSan with clang, where the
# fuzz targets also run for FUZZ_SECONDS (default 60) each on a generated seed corpus; then
# cross-builds for Windows and runs the Windows tests under Wine. Ends with passed, failed and
# skipped counted apart, and fails when a test this machine could run was skipped
# (scripts/count-tests.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/check-format.sh
jobs=$(nproc)
# Every ctest run leaves a JUnit report here; scripts/count-tests.sh adds them up at the end,
# skips apart from passes.
PERFHIVE_JUNIT_DIR=$(mktemp -d)
export PERFHIVE_JUNIT_DIR
trap 'rm -rf "$PERFHIVE_JUNIT_DIR"' EXIT

run_ctest() {
  ctest "$@" --output-junit "$PERFHIVE_JUNIT_DIR/$(date +%s%N).xml"
}

echo "== normal build (g++, RelWithDebInfo, -Werror)"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFHIVE_WERROR=ON \
  -DPERFHIVE_BUILD_TESTS=ON >/dev/null
cmake --build build/release -j "$jobs"
# Tests labelled wine drive the Windows agent and run in test-windows.sh, once it is built.
run_ctest --test-dir build/release --output-on-failure -j "$jobs" --label-exclude 'fuzz|wine'

echo "== Debian packages from build/release: lintian, install, run, remove, reinstall, purge"
scripts/test-packages.sh build/release

echo "== sanitizer build (clang, ASan+UBSan, fuzz targets)"
CC=clang CXX=clang++ cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPERFHIVE_WERROR=ON -DPERFHIVE_SANITIZE=ON -DPERFHIVE_FUZZ=ON \
  -DPERFHIVE_FUZZ_SECONDS="${FUZZ_SECONDS:-60}" >/dev/null
cmake --build build/sanitize -j "$jobs"
# Unit tests first, then the fuzz targets: fuzzers use whole cores, and tests that measure CPU
# time should not share the machine with them.
run_ctest --test-dir build/sanitize --output-on-failure -j "$jobs" --label-exclude 'fuzz|wine'
run_ctest --test-dir build/sanitize --output-on-failure -j "$jobs" --label-regex fuzz

echo "== Windows build (MinGW-w64), tests under Wine"
scripts/test-windows.sh

scripts/count-tests.sh "$PERFHIVE_JUNIT_DIR"
