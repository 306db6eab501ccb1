#!/bin/sh
# Usage: verify-unit.sh UNIT PROGRAM
# Checks a packaged unit with `systemd-analyze verify` before it is installed: its /usr/bin
# program replaced by PROGRAM (a build's), its man page not looked for (the package installs it;
# scripts/test-packages.sh checks the installed unit whole). Fails on any word from systemd, since
# it reports unknown keys and sections only as warnings. Exit 77 (a skip to CTest) without
# systemd-analyze.
set -eu
unit=$1 program=$2
command -v systemd-analyze >/dev/null || exit 77
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
name=$(basename "$unit")
sed "s|/usr/bin/$(basename "$program")|$program|" "$unit" >"$dir/$name"
out=$(systemd-analyze verify --man=no "$dir/$name" 2>&1) || { echo "$out"; exit 1; }
if [ -n "$out" ]; then
  echo "$out"
  exit 1
fi
