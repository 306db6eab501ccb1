#!/usr/bin/env bash
# The test command: installs what is missing and checks that every program the scripts and tests
# call is there; then builds and runs every test twice, once in a normal optimised build with
# warnings as errors and once under ASan+UBSan with clang, where the fuzz targets also run, each
# until it stops finding new coverage (at most FUZZ_SECONDS, default 60); then cross-builds for
# Windows and runs the Windows tests under Wine. Ends with the time each stage took, and passed,
# failed and skipped counted apart; fails when a test this machine could run was skipped
# (scripts/count-tests.sh).
#
# Compilers run through ccache, whose cache lives outside the repository (/var/cache/perfhive/
# ccache for root, else ~/.cache/perfhive/ccache; CCACHE_DIR names another), so that a fresh clone
# on a machine that ran the suite before builds warm, like the Windows libraries' cache.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/stages.sh

stage "Debian packages (scripts/install-deps.sh core windows), programs (scripts/check-tools.py)"
scripts/install-deps.sh core windows
scripts/check-tools.py
scripts/check-format.sh
jobs=$(nproc)
# Every ctest run leaves a JUnit report here; scripts/count-tests.sh adds them up at the end,
# skips apart from passes.
PERFHIVE_JUNIT_DIR=$(mktemp -d)
export PERFHIVE_JUNIT_DIR

if [[ $(id -u) -eq 0 ]]; then
  export CCACHE_DIR=${CCACHE_DIR:-/var/cache/perfhive/ccache}
else
  export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/perfhive/ccache}
fi
# Paths under the checkout are hashed relative to it, and the build folder is not hashed, so a
# clone in another folder hits what an earlier clone compiled. Three builds' objects fit in 10 GB.
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
export PERFHIVE_COMPILER_LAUNCHER=ccache
launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
ccache --zero-stats >/dev/null

run_ctest() {
  ctest "$@" --output-junit "$PERFHIVE_JUNIT_DIR/$(date +%s%N).xml"
}

# Builds that wait for no test run in the background at a low CPU priority, soaking up the
# cores the tests leave idle (end-to-end tests mostly wait on their processes): the Windows
# libraries and cross build from the start, the sanitizer build while the normal build's tests
# run. A test never waits for them, and they take what it does not use. The Windows chain is the
# longest and ends in steps that use one core (configure scripts, links, the MSIs, the tests under
# Wine), so it goes before the sanitizer build (nice 10 against 19: about nine tenths of what the
# two are left), so that less of it is left for the end; a stage that awaits either gives both the
# normal priority (docs/testing.md).
# `await NAME` waits for one and stops the script, showing the end of its log, if it failed.
declare -A background_pids background_logs
background() {
  local name=$1 niceness=$2
  shift 2
  background_logs[$name]=$(mktemp "${TMPDIR:-/tmp}/perfhive-$name-XXXXXX.log")
  nice -n "$niceness" "$@" >"${background_logs[$name]}" 2>&1 &
  background_pids[$name]=$!
  echo "   started in the background: $name (log ${background_logs[$name]})"
}
# The stage that waits for a background build gives the normal priority back to it and to every
# other background build still running (root may; a user's renice fails and changes nothing):
# nothing else is worth the cores then, and the two share them evenly. (Raising only the awaited
# one left the Windows chain, the last to end, with a tenth of the machine meanwhile.)
await() {
  local name=$1 pids="${background_pids[*]}" next
  local frontier=$pids
  while [[ -n $frontier ]]; do
    next=$(for pid in $frontier; do pgrep -P "$pid" || true; done)
    pids+=" $next"
    frontier=$next
  done
  renice -n 0 -p $pids >/dev/null 2>&1 || true
  if ! wait "${background_pids[$name]}"; then
    tail -n 80 "${background_logs[$name]}" >&2
    echo "test.sh: $name failed (its whole log: ${background_logs[$name]})" >&2
    exit 1
  fi
  rm -f "${background_logs[$name]}"
}
# Under set -e a failing command in the trap ends the script with its status: kill fails for jobs
# already waited for, which is every job once the script succeeded (CI saw exit 1 after all passed).
trap 'kill "${background_pids[@]}" 2>/dev/null || true; rm -rf "$PERFHIVE_JUNIT_DIR"' EXIT

# gRPC and the rest for MinGW-w64 (the longest build, and cached: scripts/build-windows-deps.sh),
# then the Windows cross build and the MSIs: its tests run last, under Wine.
background windows-build 10 scripts/test-windows.sh build

# Both builds keep line tables (stack traces, sanitizer reports), not full debug information: the
# packages made from build/release are stripped anyway, and full information took a third of each
# compile (docs/testing.md). The sanitizer build optimises at -O1, as AddressSanitizer advises.
stage "normal build (g++, RelWithDebInfo, -Werror)"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DPERFHIVE_WERROR=ON \
  -DPERFHIVE_BUILD_TESTS=ON "${launcher[@]}" >/dev/null
cmake --build build/release -j "$jobs"

CC=clang CXX=clang++ cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DPERFHIVE_WERROR=ON -DPERFHIVE_SANITIZE=ON -DPERFHIVE_FUZZ=ON \
  -DPERFHIVE_FUZZ_SECONDS="${FUZZ_SECONDS:-60}" "${launcher[@]}" >/dev/null
background sanitizer-build 19 cmake --build build/sanitize -j "$jobs"

stage "normal build: tests"
# Tests labelled wine drive the Windows agent and run in test-windows.sh, once it is built.
run_ctest --test-dir build/release --output-on-failure -j "$jobs" --label-exclude 'fuzz|wine'

stage "Debian packages from build/release: lintian, install, run, remove, reinstall, purge"
scripts/test-packages.sh build/release

stage "sanitizer build (clang, ASan+UBSan, fuzz targets): what is left of it"
await sanitizer-build
# Unit tests first, then the fuzz targets: fuzzers use whole cores, and tests that measure CPU
# time should not share the machine with them.
stage "sanitizer build: tests"
run_ctest --test-dir build/sanitize --output-on-failure -j "$jobs" --label-exclude 'fuzz|wine'
stage "sanitizer build: fuzz targets"
run_ctest --test-dir build/sanitize --output-on-failure -j "$jobs" --label-regex fuzz

stage "Windows libraries, cross build and MSIs: what is left of them"
await windows-build
# scripts/test-windows.sh marks its own stages with lines "== <name>"; they are timed as one here.
stage "Windows build (MinGW-w64), tests under Wine (scripts/test-windows.sh)"
scripts/test-windows.sh

echo "== compiler cache: $(ccache --print-stats | awk -F'\t' '
  $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { hits += $2 }
  $1 == "cache_miss" { misses = $2 }
  END { printf "%d hits, %d misses", hits, misses }')"
print_stage_times scripts/test.sh
scripts/count-tests.sh "$PERFHIVE_JUNIT_DIR"
