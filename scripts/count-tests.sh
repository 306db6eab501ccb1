#!/usr/bin/env bash
# Counts what CTest's JUnit reports in a folder say: passed, failed and skipped apart, never a
# skip counted as a pass. Lists every skipped test with its reason, and fails (exit 1) when a
# test was skipped that this machine could have run: the only skips allowed are tests that need
# ../shared's fixtures on a clone without ../shared. PERFHIVE_ALLOW_SKIPS=1 allows every skip
# (a developer's machine without root or Samba, say); CI does not set it.
# Usage: count-tests.sh DIR   (DIR holds the *.xml reports of `ctest --output-junit`)
set -euo pipefail
reports=${1:?usage: count-tests.sh DIR}
shared_fixtures="$(cd "$(dirname "$0")/.." && pwd)/../shared/fixtures"

# One line per skipped test: "name<TAB>reason"; then "TOTAL tests failures skipped".
parsed=$(awk '
  function attribute(line, name,    at, rest) {
    at = index(line, " " name "=\"")
    if (at == 0) return ""
    rest = substr(line, at + length(name) + 3)
    return substr(rest, 1, index(rest, "\"") - 1)
  }
  # The testsuite element spreads its attributes over lines of their own.
  /<testsuite/ { in_suite = 1 }
  in_suite {
    line = " " $0
    gsub(/\t/, " ", line)
    if ((v = attribute(line, "tests")) != "") tests += v
    if ((v = attribute(line, "failures")) != "") failures += v
    if ((v = attribute(line, "skipped")) != "") skipped += v
    if ($0 ~ />/) in_suite = 0
  }
  /<testcase / { name = attribute($0, "name"); is_skipped = ($0 ~ /status="notrun"/); reason = ""; failure = ""; after_skip = 0; after_failure = 0 }
  /<skipped message="/ { if (is_skipped) reason = attribute($0, "message") }
  is_skipped && after_skip == 1 { reason = $0; after_skip = 2 }
  is_skipped && /: Skipped$/ { after_skip = 1 }
  # A fatal failure in a fixture'"'"'s SetUpTestSuite shows as a skip of each of its tests, with the
  # failure in the output: name it, so that the run says what went wrong.
  is_skipped && after_failure == 1 { failure = failure " " $0; after_failure = 2 }
  is_skipped && /: Failure$/ && failure == "" { failure = $0; after_failure = 1 }
  /<\/testcase>/ {
    if (is_skipped) {
      if (failure != "") reason = "failed in its setup: " failure
      gsub(/\t/, " ", reason)
      print "SKIP\t" name "\t" reason
    }
    is_skipped = 0
  }
  END { print "TOTAL\t" tests + 0 "\t" failures + 0 "\t" skipped + 0 }
' "$reports"/*.xml)

read -r _ tests failures skipped < <(grep '^TOTAL' <<<"$parsed" | tr '\t' ' ')
echo
echo "Total: $((tests - failures - skipped)) passed, $failures failed, $skipped skipped"
forbidden=0
while IFS=$'\t' read -r _ name reason; do
  allowed=no
  if [[ ${PERFHIVE_ALLOW_SKIPS:-} == 1 ]]; then
    allowed=yes
  elif [[ $reason == *"../shared is not part of every clone"* && ! -d $shared_fixtures ]]; then
    allowed=yes
  fi
  if [[ $allowed == yes ]]; then
    echo "  skipped: $name: $reason"
  else
    echo "  skipped, though this machine can run it: $name: $reason"
    forbidden=$((forbidden + 1))
  fi
done < <(grep '^SKIP' <<<"$parsed")
if ((forbidden > 0)); then
  echo "count-tests: $forbidden skipped tests could have run here; a skip is not a pass" >&2
  exit 1
fi
