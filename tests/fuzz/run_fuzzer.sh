#!/usr/bin/env bash
# Runs one libFuzzer target for as long as it keeps finding something: it is stopped once it has
# gone QUIET_SECONDS without a new input (a "NEW" line: new coverage or features), and after
# MAX_SECONDS at most. A target whose parser still yields new paths keeps the time; one that has
# covered what it can stops early, so the suite's time follows what the fuzzers find rather than
# a fixed budget per target. A crash, leak, timeout or out-of-memory fails the run as usual.
#
# The stop is SIGUSR1, libFuzzer's graceful exit: it finishes the unit it is running and exits 0
# between two units. SIGINT is not used: libFuzzer handles it inside the signal handler, which
# prints and exits from wherever the target was interrupted, which is not safe in every place:
# CI's pinned_chain_fuzzer once stopped there and failed as a "timeout" of the unit it was
# running, reported at 31 s, the 15 s quiet stop plus the 10 s -timeout after its last input.
# Usage: run_fuzzer.sh FUZZER MAX_SECONDS QUIET_SECONDS CORPUS [libFuzzer flags...]
set -uo pipefail
fuzzer=$1 max_seconds=$2 quiet_seconds=$3 corpus=$4
shift 4

exec 3< <(exec "$fuzzer" -max_total_time="$max_seconds" "$@" "$corpus" 2>&1)
pid=$!
last_new=$SECONDS
interrupted=0
while :; do
  if IFS= read -r -t 1 line <&3; then
    printf '%s\n' "$line"
    [[ $line == *" NEW "* ]] && last_new=$SECONDS
  elif (($? <= 128)); then
    break  # end of output: the fuzzer has ended
  fi
  if ((!interrupted && SECONDS - last_new >= quiet_seconds)); then
    echo "run_fuzzer: nothing new for ${quiet_seconds} s; stopping after ${SECONDS} s"
    kill -USR1 "$pid" 2>/dev/null
    interrupted=1
  fi
done
wait "$pid"
status=$?
echo "run_fuzzer: $(basename "$fuzzer") ran ${SECONDS} s, exit status $status"
exit "$status"
