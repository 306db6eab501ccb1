#!/usr/bin/env bash
# A program's settings table in docs/ is what `PROGRAM settings` prints: each setting is described
# once, in the program (agent/agent_settings.cc, server/app/server_settings.cc). This checks that
# PAGE holds that table, between its two marker lines, and says how to bring it up to date; with
# --write, it puts it there.
# Usage: settings-docs.sh [--write] PROGRAM PAGE
#   e.g. settings-docs.sh build/release/agent/perfhive-agent docs/agent.md
set -euo pipefail
write=0
if [[ ${1:-} == --write ]]; then
  write=1
  shift
fi
if [[ $# -ne 2 ]]; then
  echo "usage: settings-docs.sh [--write] PROGRAM PAGE" >&2
  exit 2
fi
program=$1 page=$2
name=$(basename "$program")
begin="<!-- settings: begin (printed by \`$name settings\`; scripts/settings-docs.sh --write) -->"
end='<!-- settings: end -->'
if ! grep -qxF "$begin" "$page" || ! grep -qxF "$end" "$page"; then
  echo "settings-docs.sh: $page lacks the marker lines around its settings table:" >&2
  printf '  %s\n  %s\n' "$begin" "$end" >&2
  exit 1
fi
printed=$(mktemp)
trap 'rm -f "$printed"' EXIT
"$program" settings >"$printed"
if [[ $write -eq 1 ]]; then
  awk -v begin="$begin" -v end="$end" -v table="$printed" '
    $0 == begin { print; while ((getline line < table) > 0) print line; skipping = 1; next }
    $0 == end { skipping = 0 }
    !skipping { print }' "$page" >"$page.new"
  mv "$page.new" "$page"
  exit 0
fi
documented=$(awk -v begin="$begin" -v end="$end" \
  '$0 == end { inside = 0 } inside { print } $0 == begin { inside = 1 }' "$page")
if ! diff -u --label "$page (its settings table)" --label "$name settings" \
  <(printf '%s\n' "$documented") "$printed"; then
  echo "settings-docs.sh: $page's settings table is not what $name settings prints; run" \
    "scripts/settings-docs.sh --write $program $page" >&2
  exit 1
fi
echo "$page's settings table is what $name settings prints ($(wc -l <"$printed") lines)"
