#!/usr/bin/env bash
# The main job, on this machine: installs what is missing, builds perfhive, starts a
# perfhive-server with its embedded store and a perfhive-agent reading this host, waits for real
# samples, and asks the server what any user would ask first: % Processor Time per CPU and the
# busiest processes. Then it stops what it started, by PID.
#   scripts/demo.sh [--keep] [--seconds N]
# --keep leaves the server and agent running (it prints the web console's address, how to query
# and how to stop them);
# --seconds N waits for N seconds of samples before asking (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."

keep=0
seconds=5
while (($#)); do
  case "$1" in
    --keep) keep=1 ;;
    --seconds) seconds="$2"; shift ;;
    *) echo "usage: scripts/demo.sh [--keep] [--seconds N]" >&2; exit 2 ;;
  esac
  shift
done

# What building and running needs, and no more: the tests' peers (smbd, Prometheus) are not
# installed for a demo.
scripts/install-deps.sh build
echo "== building perfhive-server, perfhive-agent and perfhive (build/release)"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPERFHIVE_BUILD_TESTS=OFF >/dev/null
cmake --build build/release -j "$(nproc)" --target perfhive-server perfhive-agent perfhive
bin=build/release

work=$(mktemp -d "${TMPDIR:-/tmp}/perfhive-demo-XXXXXX")
server_pid=""
agent_pid=""
stop() {
  [[ -n $agent_pid ]] && kill "$agent_pid" 2>/dev/null && wait "$agent_pid" 2>/dev/null || true
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
((keep)) || trap stop EXIT

echo "== starting perfhive-server (store in $work/data, plain text on loopback)"
"$bin/server/perfhive-server" --listen 127.0.0.1:0 --http-listen 127.0.0.1:0 --data "$work/data" \
  --insecure >"$work/server.out" 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 100); do
  address=$(grep -o 'listening on [0-9.]*:[0-9]*' "$work/server.out" | awk '{print $3}' || true)
  [[ -n $address ]] && break
  sleep 0.1
done
if [[ -z ${address:-} ]]; then
  echo "perfhive-server did not start:" >&2
  cat "$work/server.log" >&2
  exit 1
fi
export PERFHIVE_SERVER=$address
console=$(grep -o 'console on http://[0-9.]*:[0-9]*/' "$work/server.out" | awk '{print $3}')
host=$(hostname)

echo "== starting perfhive-agent for $host (procfs, Global every second, threads every 5 s)"
"$bin/agent/perfhive-agent" run --server "$address" --insecure --source procfs \
  --host-name "$host" --query Global@1s --query Costly@5s --spool-dir "$work/spool" \
  2>"$work/agent.log" &
agent_pid=$!

want=$((seconds + 1))
for _ in $(seq $((seconds * 10 + 300))); do
  count=$("$bin/cli/perfhive" snapshots "\\\\$host" --query Global --insecure --format json 2>/dev/null |
          grep -c '"time"' || true)
  ((count >= want)) && break
  sleep 0.1
done
if ((count < want)); then
  echo "no samples arrived; the agent said:" >&2
  cat "$work/agent.log" >&2
  exit 1
fi

echo
echo "== perfhive hosts"
"$bin/cli/perfhive" hosts --insecure
echo
echo "== perfhive query '\\\\$host\\Processor(*)\\% Processor Time' --since ${seconds}s --stats"
"$bin/cli/perfhive" query "\\\\$host\\Processor(*)\\% Processor Time" --since "${seconds}s" \
  --stats --insecure
echo
echo "== the busiest processes: perfhive query '\\Process(*)\\% Processor Time' --top 8 --stats"
"$bin/cli/perfhive" query "\\\\$host\\Process(*)\\% Processor Time" --since "${seconds}s" \
  --top 8 --stats --insecure

if ((keep)); then
  cat <<TXT

The web console: ${console}
  this host's CPUs, live: ${console}#/chart?path=%5C%5C${host}%5CProcessor(*)%5C%25%20Processor%20Time&range=5m&live=1
  its processes:          ${console}#/processes?host=${host}&sort=cpu&desc=1
perfhive-server (PID $server_pid) and perfhive-agent (PID $agent_pid) keep running.
  export PERFHIVE_SERVER=$address
  $bin/cli/perfhive watch --insecure '\\\\$host\\Memory\\Available Bytes'
Stop them with: kill $agent_pid $server_pid   (their files are in $work)
TXT
fi
