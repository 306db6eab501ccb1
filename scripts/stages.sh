# Sourced by the test scripts: `stage NAME` ends the running stage, noting how long it took, and
# starts NAME; `print_stage_times` ends the last one and prints every stage's seconds and the
# total since the script started. New users wait for these stages, so the suite reports them.
stage_names=()
stage_seconds=()
stage_started=$SECONDS
stage() {
  if ((${#stage_names[@]})); then
    stage_seconds+=($((SECONDS - stage_started)))
  fi
  stage_started=$SECONDS
  stage_names+=("$1")
  echo "== $1"
}
print_stage_times() {
  stage_seconds+=($((SECONDS - stage_started)))
  echo "== ${1:-time} by stage (s)"
  local i
  for i in "${!stage_names[@]}"; do
    printf '%6d  %s\n' "${stage_seconds[$i]}" "${stage_names[$i]}"
  done
  printf '%6d  total\n' "$SECONDS"
}
