#!/usr/bin/env bash
# Issue #43's cluster question: where the coordinator's and the replicas' time goes. A 3-node
# cluster (common.sh's start_nodes: -Xmx256m, each node its share of event loops, 2/3 quorums)
# holding KEYS keys (default 300000, 100-byte values) takes all traffic through its first node, as
# issue #43 measured it: after a closed-loop warm-up (WARMUP s, default 40, PUT then GET), per
# workload (WORKLOADS, default "put get") one constant-rate run (PUT_RATE default 20000 of unique
# keys, GET_RATE default 30000 of filled keys, 64 connections) during which every node is profiled
# at once, event by event (EVENTS, default "cpu alloc lock wall", SLICE s each, default 10).
# Prints the run's summary, then each node's graph summarised by `bench flame` (where the samples
# went, top self frames); the HTML graphs stay under OUT (default a new directory under /tmp).
# THREADS=1 takes every graph by thread (/admin/profile?threads=true; `bench flame` then lists each
# thread's samples and top frames: where each event loop and storage thread waits, in wall graphs).
# Usage: [JAR=cli/target/dht.jar] [KEYS=300000] bench/scripts/cluster-profiles.sh
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
jar="${JAR:-$root/cli/target/dht.jar}"
keys="${KEYS:-300000}"; warm="${WARMUP:-40}"; slice="${SLICE:-10}"
read -r -a events <<<"${EVENTS:-cpu alloc lock wall}"; read -r -a workloads <<<"${WORKLOADS:-put get}"
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
dir="$(mktemp -d /tmp/dht-cluster-profiles.XXXXXX)"
out="${OUT:-$dir/graphs}"; mkdir -p "$out"
ports=(18810 18811 18812)
pids=(); load=""
trap '{ [ -z "$load" ] || kill "$load" 2>/dev/null; } || true; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null' EXIT
bench() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
machine_line
echo "build: $jar ($(cd "$root" && git rev-parse --short HEAD)); graphs under $out"
start_nodes "$jar" "" "${ports[@]}"
first="http://127.0.0.1:${ports[0]}"
bench fill --url "$first" --count "$keys" --value-size 100 -c 64 | grep -E '^(filled|Filled)' || true
urls="$(node_urls "${ports[@]}")"
wait_quiet ${urls//,/ }
fresh_keys
bench --url "$first" -w put --distribution sequential --keys 2000000000 --start "$start_at" -c 64 -R 0 -d "${warm}s" --warmup 0s >/dev/null
bench --url "$first" -w get --keys "$keys" -c 64 -R 0 -d "${warm}s" --warmup 0s >/dev/null
for work in "${workloads[@]}"; do
  rate=$([ "$work" = put ] && echo "${PUT_RATE:-20000}" || echo "${GET_RATE:-30000}")
  if [ "$work" = put ]; then # new keys: a range no run before wrote
    fresh_keys
    args=(--url "$first" -w put --distribution sequential --keys 2000000000 --start "$start_at" -c 64 -R "$rate")
  else
    args=(--url "$first" -w "$work" --keys "$keys" -c 64 -R "$rate")
  fi
  # The load outlasts the profiles: each event's graph takes its slice plus a few seconds to stop
  # and render, and a graph taken after the load ended would show an idle cluster.
  secs=$(( ${#events[@]} * (slice + 5) + 15 ))
  bench "${args[@]}" -d "${secs}s" --warmup 5s > "$dir/$work-summary.txt" &
  load=$!
  sleep 10 # the generator's warm-up, and 5 s into the measured window
  for ev in "${events[@]}"; do
    curls=()
    for p in "${ports[@]}"; do
      curl -fsS --max-time $((slice + 60)) "http://127.0.0.1:$p/admin/profile?event=$ev&duration=${slice}s&threads=$([ "${THREADS:-0}" = 1 ] && echo true || echo false)" \
        -o "$out/$work-$ev-$p.html" &
      curls+=($!)
    done
    for i in "${!curls[@]}"; do wait "${curls[$i]}" || echo "profile $ev from node ${ports[$i]} failed"; done
  done
  wait "$load"; load=""
  echo "== $work at $rate req/s through ${first}: $(percentiles < "$dir/$work-summary.txt")"
  for ev in "${events[@]}"; do
    for p in "${ports[@]}"; do
      echo "-- $work $ev, node $p ($([ "$p" = "${ports[0]}" ] && echo coordinator || echo replica))"
      [ -s "$out/$work-$ev-$p.html" ] || { echo "   (no graph)"; continue; }
      bench flame --top 12 "$out/$work-$ev-$p.html" | sed 's/^/   /' || echo "   (bench flame could not read it)"
    done
  done
done
