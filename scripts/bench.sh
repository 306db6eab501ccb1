#!/usr/bin/env bash
# Builds the benchmarks in Release and prints their figures. Pass Google Benchmark flags through,
# e.g. scripts/bench.sh --benchmark_filter=Walk
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/bench -j "$(nproc)" --target perfhive_bench
build/bench/tests/bench/perfhive_bench "$@"
