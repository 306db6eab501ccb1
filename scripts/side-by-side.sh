#!/usr/bin/env bash
# Side by side (issue 24): loads one recording into perfhive, Prometheus and VictoriaMetrics and
# prints, for each, the bytes it keeps per value, the CPU its ingest cost per value and the time
# of the same two queries, in one table (docs/capacity.md has the figures and how to read them).
#
#   scripts/side-by-side.sh --replay DIR            # DIR/HOST/: replay directories, one per host
#   scripts/side-by-side.sh --record-seconds N [--record-interval S]   # this host's procfs first
#   scripts/side-by-side.sh --generate HOSTS SNAPSHOTS [--generate-interval 10s]  # fleet_generator
#   options: --build DIR (default build/release)  --runs N (query repetitions, default 5)
#            --work DIR (default a new temporary folder)  --keep (leave it, and the logs)
#            --perfhive-flag FLAG (repeatable: given to perfhive-server, e.g. --no-compact-groups)
#
# Everything runs on 127.0.0.1 on free ports; every process the script starts is stopped by PID
# when it ends, however it ends.
#
# How, in three phases:
#  1. perfhive: a perfhive-server (--insecure, a new store) takes every host's replay through
#     its own `perfhive-agent run --source replay`, all hosts at once. Ingest CPU = the server's
#     user + system time from the first snapshot until its compaction pass has run after the last
#     one acknowledged (the agents' is not counted: they stand for the hosts). Then it is stopped
#     (its WAL checkpointed) and its
#     data directory measured (du -b: the SQLite database, everything).
#  2. Prometheus and VictoriaMetrics: the same store is opened by a perfhive-server with
#     --remote-write to a private Prometheus (--web.enable-remote-write-receiver, an out-of-order
#     window reaching the recording's start) and a private VictoriaMetrics (/api/v1/write), which
#     sends them the values it computes from the raw samples (docs/prometheus.md), from the
#     recording's start on (--remote-write-backfill); it runs until both exporters have settled
#     everything (pending 0, offered = sent + dropped, unchanged for 3 s). Ingest CPU = each receiver's
#     user + system time over that phase. Values = what each says it appended
#     (prometheus_tsdb_head_samples_appended_total, vm_rows_inserted_total).
#  3. Queries, the same three questions to all three, alternating, median of --runs: one host's
#     `\Processor(*)\% Processor Time` over the whole recording, that host's whole Process
#     object at the last sample time, and the fleet's: the average and p95 of every host's
#     `\Processor(_Total)\% Processor Time` by role, a step a minute (the agents label half the
#     hosts role=web and half role=sql; PromQL needs two queries, avg by and quantile by, timed
#     together). perfhive through its CLI and through curl on its HTTP API (/api/v1/read), the
#     others through curl on theirs, each a new process per question as a user would run it.
#     The fleet question is also asked once at the recording's own step, its boundaries half a
#     step after the samples so that each step holds one sample of every host, and its averages
#     compared with Prometheus' and VictoriaMetrics'.
# Then Prometheus' head is written as a block (admin API snapshot) and that block measured;
# VictoriaMetrics is flushed and merged (/internal/force_flush, /internal/force_merge), stopped
# and its data/ and indexdb/ measured (not cache/, the caches it saves when it stops).
#
# perfhive counts counter values as its benchmarks do (counters × instances of every object of
# every stored snapshot, scripts/side_by_side/recording.py); Prometheus and VictoriaMetrics count
# the computed values they received, which are fewer (no base counters, no value for a host's
# first sample or a new instance's first). Each store's bytes per value is over its own count.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
py=/usr/bin/python3
helper=$repo/scripts/side_by_side/recording.py

usage() {  # usage [EXIT]: the comment above, to stdout for --help, to stderr for a mistake
  local text
  text=$(sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//')
  if ((${1:-2} == 0)); then echo "$text"; else echo "$text" >&2; fi
  exit "${1:-2}"
}

mode=""
replay_root=""
record_seconds=0
record_interval=1
gen_hosts=0
gen_snapshots=0
gen_interval=10s
build=$repo/build/release
runs=5
work=""
keep=0
perfhive_flags=()
while (($#)); do
  case "$1" in
    --replay | --record-seconds | --record-interval | --generate-interval | --build | --runs | --work | \
      --perfhive-flag)
      (($# >= 2)) || { echo "side-by-side: $1 needs a value" >&2; usage; } ;;&
    --generate) (($# >= 3)) || { echo "side-by-side: $1 needs HOSTS and SNAPSHOTS" >&2; usage; } ;;&
    --replay) mode=replay; replay_root=$(cd "$2" && pwd); shift ;;
    --record-seconds) mode=record; record_seconds=$2; shift ;;
    --record-interval) record_interval=$2; shift ;;
    --generate) mode=generate; gen_hosts=$2; gen_snapshots=$3; shift 2 ;;
    --generate-interval) gen_interval=$2; shift ;;
    --build) build=$(cd "$2" && pwd); shift ;;
    --runs) runs=$2; shift ;;
    --work) work=$2; shift ;;
    --keep) keep=1 ;;
    --perfhive-flag) perfhive_flags+=("$2"); shift ;;
    -h | --help) usage 0 ;;
    *) echo "side-by-side: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
[[ -n $mode ]] || usage

server_bin=$build/server/perfhive-server
agent_bin=$build/agent/perfhive-agent
cli_bin=$build/cli/perfhive
generator_bin=$build/tests/bench/realistic_fleet/fleet_generator
for tool in "$server_bin" "$agent_bin" "$cli_bin" /usr/bin/prometheus /usr/bin/victoria-metrics \
  "$py" curl; do
  command -v "$tool" >/dev/null || {
    echo "side-by-side: $tool is missing (cmake --build $build; scripts/install-deps.sh)" >&2
    exit 1
  }
done

if [[ -z $work ]]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/perfhive-side-by-side-XXXXXX")
else
  mkdir -p "$work"
  work=$(cd "$work" && pwd)
fi
# The binaries as they are now, so that a build running meanwhile changes nothing in this run.
mkdir -p "$work/bin"
cp "$server_bin" "$agent_bin" "$cli_bin" "$work/bin/"
server_bin=$work/bin/perfhive-server
agent_bin=$work/bin/perfhive-agent
cli_bin=$work/bin/perfhive
log() { printf '== %s %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# Every process started here, by PID; stopped (TERM, then KILL after 30 s) on exit.
pids=()
# Whether a child of this script is still running. One that exited stays a zombie until it is
# waited for, so its PID cannot have been reused meanwhile.
running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}
stop_pid() {
  local pid=$1
  if running "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 300); do
      running "$pid" || break
      sleep 0.1
    done
    if running "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  wait "$pid" 2>/dev/null || true
  forget_pid "$pid"
}
forget_pid() {  # a process that ended and was waited for: its PID may be reused
  local kept=() pid
  for pid in "${pids[@]}"; do [[ $pid == "$1" ]] || kept+=("$pid"); done
  pids=("${kept[@]}")
}
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do stop_pid "$pid"; done
  if ((keep)); then
    echo "side-by-side: kept $work"
  elif ((status != 0)); then
    echo "side-by-side: failed; logs kept in $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# user + system CPU of a process so far, in seconds.
cpu_seconds() {
  local stat
  stat=$(<"/proc/$1/stat")
  stat=${stat##*) }  # the fields after the command name, from field 3 (state) on
  # shellcheck disable=SC2086
  set -- $stat
  awk -v u="${12}" -v s="${13}" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (u + s) / hz }'
}
# The sum of a metric's samples (every label set) on a Prometheus text page.
metric_sum() {
  curl -fsS "$1" | awk -v n="$2" '
    $1 == n || index($1, n "{") == 1 { s += $NF } END { printf "%.0f", s }'
}
wait_http() {
  local what=$1 url=$2 logfile=$3
  for _ in $(seq 300); do
    curl -fsS -o /dev/null "$url" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "side-by-side: $what did not answer $url; its log:" >&2
  tail -20 "$logfile" >&2
  exit 1
}
rfc3339() {  # Unix ns -> RFC 3339 with milliseconds
  date -u -d "@$(($1 / 1000000000)).$(printf '%03d' $((($1 / 1000000) % 1000)))" \
    +%Y-%m-%dT%H:%M:%S.%3NZ
}
seconds_of() {  # Unix ns -> seconds with milliseconds, for the HTTP APIs
  printf '%d.%03d' $(($1 / 1000000000)) $((($1 / 1000000) % 1000))
}
disk_bytes() { du -sb "$1" | awk '{print $1}'; }

# ---------------------------------------------------------------------------------------------
# The recording.
case "$mode" in
  replay) ;;
  record)
    host=$(hostname -s)
    replay_root=$work/replay
    mkdir -p "$replay_root/$host"
    count=$(awk -v s="$record_seconds" -v i="$record_interval" 'BEGIN { print int(s / i) + 1 }')
    log "recording $count snapshots of this host's procfs source, ${record_interval}s apart"
    began=$EPOCHREALTIME
    for ((k = 0; k < count; ++k)); do
      titles=()
      if ((k == 0)); then titles=(--titles-output "$replay_root/$host/titles.bin"); fi
      "$agent_bin" snapshot --output "$(printf '%s/%s/%05d.perf' "$replay_root" "$host" "$k")" \
        "${titles[@]}"
      # Keep the schedule: the next snapshot at began + (k+1) × interval.
      pause=$(awk -v b="$began" -v k="$k" -v i="$record_interval" -v now="$EPOCHREALTIME" \
        'BEGIN { p = b + (k + 1) * i - now; printf "%.3f", (p > 0 ? p : 0) }')
      if ((k + 1 < count)); then sleep "$pause"; fi
    done
    ;;
  generate)
    [[ -x $generator_bin ]] || {
      echo "side-by-side: $generator_bin is missing (cmake --build $build --target fleet_generator)" >&2
      exit 1
    }
    replay_root=$work/replay
    interval_s=$(awk -v t="$gen_interval" 'BEGIN {
      n = t + 0; if (t ~ /ms$/) n /= 1000; else if (t ~ /m$/) n *= 60; else if (t ~ /h$/) n *= 3600
      print n }')
    # The exporter sends only what is younger than an hour when it first sees a host
    # (docs/prometheus.md): the generated hour ends a minute ago.
    start=$(date -u -d "@$(awk -v now="$(date +%s)" -v n="$gen_snapshots" -v i="$interval_s" \
      'BEGIN { printf "%d", now - n * i - 60 }')" +%Y-%m-%dT%H:%M:%SZ)
    log "generating $gen_hosts hosts × $gen_snapshots snapshots, $gen_interval apart, from $start"
    "$generator_bin" --hosts "$gen_hosts" --snapshots "$gen_snapshots" --interval "$gen_interval" \
      --start "$start" --out "$replay_root" | sed 's/^/   /'
    ;;
esac

"$py" "$helper" "$replay_root" >"$work/recording.tsv"
read -r _ snapshots values raw_bytes first_ns last_ns hosts < <(grep '^total' "$work/recording.tsv")
# The host the queries ask about: the one with the most values.
query_host=$(awk -F'\t' '$1 == "host" && $4 > best { best = $4; h = $2 } END { print h }' \
  "$work/recording.tsv")
read -r query_snapshots query_first_ns query_last_ns < <(awk -F'\t' -v h="$query_host" \
  '$1 == "host" && $2 == h { print $3, $6, $7 }' "$work/recording.tsv")
# The recording's interval, to the nearest millisecond: truncated, 999.98 ms samples became a 999
# ms step, whose boundaries drifted across the samples by a step in 17 minutes.
intervals=$((query_snapshots > 1 ? query_snapshots - 1 : 1))
step_ms=$((((query_last_ns - query_first_ns) / 1000000 + intervals / 2) / intervals))
log "recording: $hosts hosts, $snapshots snapshots, $values counter values, $raw_bytes raw bytes," \
  "$(rfc3339 "$first_ns") to $(rfc3339 "$last_ns")"
# perfhive's exporter sends a new host from --remote-write-backfill back (an hour by default,
# docs/prometheus.md), and Prometheus takes samples older than its head's newest time only
# within an out-of-order window: both are set to reach the recording's first sample.
backfill_s=$(($(date +%s) - first_ns / 1000000000 + 600))

# ---------------------------------------------------------------------------------------------
# Phase 1: perfhive alone.
start_server() {  # start_server NAME [FLAGS...]: sets server_pid, server_address, metrics_url
  local name=$1
  shift
  "$server_bin" --insecure --data "$work/perfhive" --listen 127.0.0.1:0 \
    --metrics-listen 127.0.0.1:0 --http-listen 127.0.0.1:0 ${perfhive_flags[@]+"${perfhive_flags[@]}"} \
    "$@" >"$work/$name.out" \
    2>"$work/$name.log" &
  server_pid=$!
  pids+=("$server_pid")
  server_address=""
  for _ in $(seq 300); do
    server_address=$(grep -so 'listening on [0-9.]*:[0-9]*' "$work/$name.out" | awk '{print $3}' || true)
    [[ -n $server_address ]] && break
    sleep 0.1
  done
  [[ -n $server_address ]] || {
    echo "side-by-side: perfhive-server did not start; its log:" >&2
    tail -20 "$work/$name.log" >&2
    exit 1
  }
  metrics_url=$(grep -o 'metrics on http://[0-9.]*:[0-9]*/metrics' "$work/$name.out" | awk '{print $3}')
  http_url=$(grep -o 'console on http://[0-9.]*:[0-9]*' "$work/$name.out" | awk '{print $3}')
}

log "phase 1: perfhive-server takes every host's replay"
start_server perfhive-ingest
cpu_before=$(cpu_seconds "$server_pid")
agent_pids=()
roles=(web sql)
for dir in "$replay_root"/*/; do
  host=$(basename "$dir")
  [[ $host == *.titles ]] && continue
  "$agent_bin" run --source replay --replay "$dir" --host-name "$host" --server "$server_address" \
    --insecure --interval 20ms --spool-dir "$work/spool/$host" --timeout 1h \
    --label "role=${roles[${#agent_pids[@]} % 2]}" >"$work/agent-$host.log" 2>&1 &
  agent_pids+=("$!")
  pids+=("$!")
done
ingest_began=$EPOCHREALTIME
for pid in "${agent_pids[@]}"; do
  status=0
  wait "$pid" || status=$?
  forget_pid "$pid"
  if ((status != 0)); then
    echo "side-by-side: an agent failed (exit $status); logs in $work/agent-*.log" >&2
    exit 1
  fi
done
ingest_wall=$(awk -v a="$ingest_began" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
# The server's compaction pass (every 10 s) rewrites the groups closed by then as columnar blocks,
# as it does for a running fleet; its CPU is counted with the ingest's. Each host's last group
# stays open, as frames.
log "waiting 11 s for the server's compaction pass"
sleep 11
perfhive_cpu=$(awk -v a="$cpu_before" -v b="$(cpu_seconds "$server_pid")" 'BEGIN { printf "%.2f", b - a }')
stored=$(metric_sum "$metrics_url" perfhive_ingest_snapshots_stored_total)
stored_bytes=$(metric_sum "$metrics_url" perfhive_store_stored_bytes)
log "stored $stored of $snapshots snapshots in ${ingest_wall}s; server CPU ${perfhive_cpu}s;" \
  "frames $stored_bytes bytes"
((stored == snapshots)) || {
  echo "side-by-side: the server stored $stored snapshots, not $snapshots" >&2
  exit 1
}
stop_pid "$server_pid"
perfhive_bytes=$(disk_bytes "$work/perfhive")

# ---------------------------------------------------------------------------------------------
# Phase 2: the same store exported to a private Prometheus and a private VictoriaMetrics.
prom_port=$(free_port)
prom_url=http://127.0.0.1:$prom_port
mkdir -p "$work/prometheus/data"
printf 'global: {scrape_interval: 15s}\nstorage: {tsdb: {out_of_order_time_window: %ss}}\n' \
  "$backfill_s" >"$work/prometheus/prometheus.yml"
/usr/bin/prometheus --config.file="$work/prometheus/prometheus.yml" \
  --storage.tsdb.path="$work/prometheus/data" --web.listen-address="127.0.0.1:$prom_port" \
  --web.enable-remote-write-receiver --web.enable-admin-api >"$work/prometheus.log" 2>&1 &
prom_pid=$!
pids+=("$prom_pid")

vm_port=$(free_port)
vm_url=http://127.0.0.1:$vm_port
# No response cache, so that repeated queries are answered from the data each time; no latency
# offset, so that the newest samples are visible at once.
/usr/bin/victoria-metrics -storageDataPath="$work/victoria-metrics" \
  -httpListenAddr="127.0.0.1:$vm_port" -retentionPeriod=100y -search.disableCache \
  -search.latencyOffset=0s >"$work/victoria-metrics.log" 2>&1 &
vm_pid=$!
pids+=("$vm_pid")
wait_http Prometheus "$prom_url/-/ready" "$work/prometheus.log"
wait_http VictoriaMetrics "$vm_url/health" "$work/victoria-metrics.log"

log "phase 2: perfhive-server exports the store to Prometheus ($prom_url) and VictoriaMetrics ($vm_url)"
prom_cpu_before=$(cpu_seconds "$prom_pid")
vm_cpu_before=$(cpu_seconds "$vm_pid")
start_server perfhive-export --remote-write "$prom_url/api/v1/write" \
  --remote-write "$vm_url/api/v1/write" --remote-write-backfill "${backfill_s}s"
export_cpu_before=$(cpu_seconds "$server_pid")
export_began=$EPOCHREALTIME
settled_for=0
last_offered=""
last_settled=-1
stalled_for=0
while ((settled_for < 3)); do
  sleep 1
  page=$(curl -fsS "$metrics_url")
  state=$(awk '
    /^perfhive_export_samples_offered_total/ { o += $NF }
    /^perfhive_export_samples_sent_total/ { s += $NF }
    /^perfhive_export_samples_dropped_total/ { d += $NF }
    /^perfhive_export_samples_pending/ { p += $NF }
    END { printf "%.0f %.0f %.0f %.0f", o, s, d, p }' <<<"$page")
  read -r offered sent dropped pending <<<"$state"
  if ((offered > 0 && pending == 0 && offered == sent + dropped)) && [[ $offered == "$last_offered" ]]; then
    settled_for=$((settled_for + 1))
  else
    settled_for=0
  fi
  last_offered=$offered
  # A receiver that stops taking anything (it keeps refusing with a status that is retried):
  # give up after 5 minutes without progress.
  if ((sent + dropped == last_settled)); then stalled_for=$((stalled_for + 1)); else stalled_for=0; fi
  last_settled=$((sent + dropped))
  if ((stalled_for >= 300)); then
    echo "side-by-side: the export made no progress for 5 minutes (offered $offered, sent $sent," \
      "dropped $dropped, pending $pending); see $work/perfhive-export.log" >&2
    exit 1
  fi
done
export_wall=$(awk -v a="$export_began" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a - 3 }')
export_cpu=$(awk -v a="$export_cpu_before" -v b="$(cpu_seconds "$server_pid")" 'BEGIN { printf "%.2f", b - a }')
prom_cpu=$(awk -v a="$prom_cpu_before" -v b="$(cpu_seconds "$prom_pid")" 'BEGIN { printf "%.2f", b - a }')
vm_cpu=$(awk -v a="$vm_cpu_before" -v b="$(cpu_seconds "$vm_pid")" 'BEGIN { printf "%.2f", b - a }')
prom_values=$(metric_sum "$prom_url/metrics" prometheus_tsdb_head_samples_appended_total)
vm_values=$(metric_sum "$vm_url/metrics" vm_rows_inserted_total)
log "exported in ${export_wall}s (+3 s to see it settle): offered $offered, sent $sent," \
  "dropped $dropped (both receivers); perfhive-server CPU ${export_cpu}s"
log "Prometheus appended $prom_values samples, VictoriaMetrics inserted $vm_values rows"

# ---------------------------------------------------------------------------------------------
# Phase 3: the same questions to each, alternating.
from=$(rfc3339 "$query_first_ns")
to=$(rfc3339 "$query_last_ns")
prom_step=$(awk -v ms="$step_ms" 'BEGIN { printf "%.3f", ms / 1000 }')
q1_pdh="\\\\$query_host\\Processor(*)\\% Processor Time"
q2_pdh="\\\\$query_host\\Process(*)\\*"
q1_promql="pdh_processor_processor_time_ratio{host=\"$query_host\"}"
# The samples at that time exactly (a window of half a step): the processes alive then. A plain
# selector would add every process seen in the 5 minutes before (the lookback), which on a host
# that starts many short processes is ten times the answer.
q2_promql="{__name__=~\"pdh_process_.*\",host=\"$query_host\"}[$((step_ms / 2))ms]"
log "queries on host $query_host, $from to $to (step ${prom_step}s for PromQL), median of $runs" \
  "(load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs):"
echo "   1: perfhive query '$q1_pdh' --from $from --to $to (and /api/v1/read)"
echo "      query_range $q1_promql"
echo "   2: perfhive query '$q2_pdh' --from $to --to $to (and /api/v1/read)"
echo "      query $q2_promql at $to"

q3_pdh="\\\\*\\Processor(_Total)\\% Processor Time"
q3_promql='pdh_processor_processor_time_ratio{instance="_Total"}'
echo "   3: perfhive query '$q3_pdh' --from $from --to $to --step 60s --aggregate avg,p95"
echo "      --group-by role (and /api/v1/read); query_range avg by (role) ($q3_promql) and"
echo "      quantile by (role) (0.95, $q3_promql), step 60s"

perfhive_q1() {
  "$cli_bin" query "$q1_pdh" --from "$from" --to "$to" --server "$server_address" --insecure \
    --format json
}
perfhive_q2() {
  "$cli_bin" query "$q2_pdh" --from "$to" --to "$to" --server "$server_address" --insecure \
    --format json --max-points 100000000
}
perfhive_q3() {  # [STEP [FROM_NS]]: 60s from the query host's first sample unless given
  "$cli_bin" query "$q3_pdh" --from "$(rfc3339 "${2:-$query_first_ns}")" --to "$to" \
    --step "${1:-60s}" --aggregate avg,p95 \
    --group-by role --server "$server_address" --insecure --format json
}
perfhive_http_q3() {
  curl -fsSG "$http_url/api/v1/read" --data-urlencode "path=$q3_pdh" --data-urlencode "from=$from" \
    --data-urlencode "to=$to" --data-urlencode "step=60s" --data-urlencode "aggregate=avg,p95" \
    --data-urlencode "group_by=role"
}
# PromQL's two queries for the one question, their answers as one JSON list. [STEP] in seconds,
# [START_NS] the query host's first sample unless given.
http_q3() {
  local url=$1 step=${2:-60} start_ns=${3:-$query_first_ns}
  echo "["
  curl -fsSG "$url/api/v1/query_range" --data-urlencode "query=avg by (role) ($q3_promql)" \
    --data-urlencode "start=$(seconds_of "$start_ns")" \
    --data-urlencode "end=$(seconds_of "$query_last_ns")" --data-urlencode "step=$step"
  echo ","
  curl -fsSG "$url/api/v1/query_range" \
    --data-urlencode "query=quantile by (role) (0.95, $q3_promql)" \
    --data-urlencode "start=$(seconds_of "$start_ns")" \
    --data-urlencode "end=$(seconds_of "$query_last_ns")" --data-urlencode "step=$step"
  echo "]"
}
perfhive_http_q1() {
  curl -fsSG "$http_url/api/v1/read" --data-urlencode "path=$q1_pdh" --data-urlencode "from=$from" \
    --data-urlencode "to=$to"
}
perfhive_http_q2() {
  curl -fsSG "$http_url/api/v1/read" --data-urlencode "path=$q2_pdh" --data-urlencode "from=$to" \
    --data-urlencode "to=$to" --data-urlencode "max_points=100000000"
}
http_q1() {
  curl -fsSG "$1/api/v1/query_range" --data-urlencode "query=$q1_promql" \
    --data-urlencode "start=$(seconds_of "$query_first_ns")" \
    --data-urlencode "end=$(seconds_of "$query_last_ns")" --data-urlencode "step=$prom_step"
}
http_q2() {
  curl -fsSG "$1/api/v1/query" --data-urlencode "query=$q2_promql" \
    --data-urlencode "time=$(seconds_of "$query_last_ns")"
}
# What an answer holds: series and points (perfhive's JSON or the Prometheus API's).
answer_size() {
  "$py" -c '
import json, sys
j = json.load(sys.stdin)
if isinstance(j, list):  # the two PromQL answers to one question
    j = {"data": {"result": [r for a in j for r in a["data"]["result"]]}}
if "series" in j:
    s = j["series"]
    p = sum(1 for x in s for v in x["values"] if v is not None)
else:
    s = j["data"]["result"]
    p = sum(len(x.get("values", [])) + (1 if "value" in x else 0) for x in s)
print(f"{len(s)} series, {p} points")'
}
timed_ms() {  # runs "$@" with its output to $timed_out; prints its wall time in ms
  local began=$EPOCHREALTIME
  "$@" >"$timed_out"
  awk -v a="$began" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A times=()
stores=(perfhive perfhive-http prometheus victoria-metrics)
for store in "${stores[@]}"; do
  times[$store.1]=""
  times[$store.2]=""
  times[$store.3]=""
done
timed_out=$work/answer.json
for ((run = 1; run <= runs; ++run)); do
  for q in 1 2 3; do
    for store in "${stores[@]}"; do
      case $store in
        perfhive) ms=$(timed_ms "perfhive_q$q") ;;
        perfhive-http) ms=$(timed_ms "perfhive_http_q$q") ;;
        prometheus) ms=$(timed_ms "http_q$q" "$prom_url") ;;
        victoria-metrics) ms=$(timed_ms "http_q$q" "$vm_url") ;;
      esac
      times[$store.$q]+="$ms "
      if ((run == 1)); then
        printf '   query %s, %-17s %s\n' "$q" "$store:" "$(answer_size <"$timed_out")"
      fi
    done
  done
done
for key in "${!times[@]}"; do
  times[$key]=$(tr ' ' '\n' <<<"${times[$key]}" | grep . | median)
done

# The fleet question's values, at the recording's own step, its boundaries half a step after the
# query host's samples. They are compared at the steps that hold one sample of every host: there
# perfhive's exact step values and the receivers' last values are the same numbers. (A step
# without a sample of a host counts it as missing, where the receivers take its previous value;
# one with two is computed over both, where they take the last one's. Samples come milliseconds
# early or late, and on a loaded machine a procfs recorder's by more.)
check_first_ns=$((query_first_ns + step_ms * 500000))
perfhive_q3 "${step_ms}ms" "$check_first_ns" >"$work/q3-perfhive.json"
for store in prometheus victoria-metrics; do
  url=$prom_url
  [[ $store == victoria-metrics ]] && url=$vm_url
  http_q3 "$url" "$prom_step" "$check_first_ns" >"$work/q3-$store.json"
  "$py" - "$work/q3-perfhive.json" "$work/q3-$store.json" "$store" "$work/recording.tsv" \
    "$step_ms" <<'PY'
import bisect, collections, json, sys
ours = json.load(open(sys.argv[1]))
theirs = json.load(open(sys.argv[2]))[0]["data"]["result"]
step_ns = int(sys.argv[5]) * 1000000
samples = collections.defaultdict(list)
for line in open(sys.argv[4]):
    fields = line.rstrip("\n").split("\t")
    if fields[0] == "sample":
        samples[fields[1]].append(int(fields[2]))
for times in samples.values():
    times.sort()
def one_sample_each(end_ns):  # every host has one sample in (end - step, end]
    return all(bisect.bisect_right(t, end_ns) - bisect.bisect_right(t, end_ns - step_ns) == 1
               for t in samples.values())
avg = {s["aggregate"]["group"]: dict(zip(s["times"], s["values"]))
       for s in ours["series"] if s["aggregate"]["function"] == "avg"}
compared, worst = 0, 0.0
for result in theirs:
    mine = avg.get(result["metric"].get("role"), {})
    for t, value in result["values"]:
        ms = round(float(t) * 1000)
        if ms in mine and mine[ms] is not None and one_sample_each(ms * 1000000):
            worst = max(worst, abs(mine[ms] - float(value) * 100))
            compared += 1
print("   fleet averages by role, perfhive against %s: %d steps compared, largest difference %.3g"
      % (sys.argv[3], compared, worst))
if compared == 0 or worst > 1e-6:
    sys.exit("side-by-side: the fleet averages differ")
PY
done

# ---------------------------------------------------------------------------------------------
# Disk: Prometheus' head as a block; VictoriaMetrics flushed, merged and stopped.
prom_all_bytes=$(disk_bytes "$work/prometheus/data")
snapshot=$(curl -fsS -X POST "$prom_url/api/v1/admin/tsdb/snapshot" |
  "$py" -c 'import json, sys; print(json.load(sys.stdin)["data"]["name"])')
prom_bytes=$(disk_bytes "$work/prometheus/data/snapshots/$snapshot")
curl -fsS "$vm_url/internal/force_flush" >/dev/null
curl -fsS "$vm_url/internal/force_merge" >/dev/null
sleep 2
stop_pid "$vm_pid"
stop_pid "$server_pid"
# data/ and indexdb/; cache/ holds the caches it saves when it stops (rebuilt when missing).
vm_bytes=$(($(disk_bytes "$work/victoria-metrics/data") + $(disk_bytes "$work/victoria-metrics/indexdb")))
log "Prometheus: the head as a block $prom_bytes bytes (index $(disk_bytes \
  "$work/prometheus/data/snapshots/$snapshot"/*/index)); the data directory with head chunks and" \
  "WAL $prom_all_bytes bytes before the snapshot"
log "VictoriaMetrics after force_flush, force_merge and stop: data $(disk_bytes \
  "$work/victoria-metrics/data"), indexdb $(disk_bytes "$work/victoria-metrics/indexdb")," \
  "saved caches $(disk_bytes "$work/victoria-metrics/cache") bytes"

# ---------------------------------------------------------------------------------------------
echo
printf '%-18s | %12s | %11s | %11s | %12s | %12s | %10s | %10s | %10s\n' store bytes values \
  bytes/value "ingest CPU s" "CPU µs/value" "query 1 ms" "query 2 ms" "query 3 ms"
printf '%s\n' "-------------------+--------------+-------------+-------------+--------------+--------------+------------+------------+-----------"
row() {
  awk -v n="$1" -v b="$2" -v v="$3" -v c="$4" -v q1="$5" -v q2="$6" -v q3="$7" 'BEGIN {
    printf "%-18s | %12d | %11d | %11.3f | %12.2f | %12.2f | %10s | %10s | %10s\n",
      n, b, v, v ? b / v : 0, c, v ? c * 1e6 / v : 0, q1, q2, q3 }'
}
row perfhive "$perfhive_bytes" "$values" "$perfhive_cpu" "${times[perfhive.1]}" "${times[perfhive.2]}" \
  "${times[perfhive.3]}"
printf '%-18s | %12s | %11s | %11s | %12s | %12s | %10s | %10s | %10s\n' "  (HTTP, curl)" "" "" "" \
  "" "" "${times[perfhive-http.1]}" "${times[perfhive-http.2]}" "${times[perfhive-http.3]}"
row prometheus "$prom_bytes" "$prom_values" "$prom_cpu" "${times[prometheus.1]}" \
  "${times[prometheus.2]}" "${times[prometheus.3]}"
row victoria-metrics "$vm_bytes" "$vm_values" "$vm_cpu" "${times[victoria-metrics.1]}" \
  "${times[victoria-metrics.2]}" "${times[victoria-metrics.3]}"
echo
echo "perfhive: store directory after a clean stop (its frames alone: $stored_bytes bytes," \
  "$(awk -v b="$stored_bytes" -v v="$values" 'BEGIN { printf "%.3f", b / v }') per value);" \
  "counter values in the raw snapshots; ingest from ${ingest_wall}s of $hosts replaying agents." \
  "Its export of $offered computed values to both receivers took ${export_cpu}s of its CPU."
echo "perfhive (HTTP, curl): the same questions to the server's /api/v1/read, as curl asks the others."
echo "prometheus: the head written as a block (admin snapshot); samples appended (remote write)."
echo "victoria-metrics: data/ and indexdb/ after force_flush, force_merge and a stop (not its saved" \
  "caches); rows inserted."
