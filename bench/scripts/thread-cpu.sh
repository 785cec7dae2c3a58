#!/usr/bin/env bash
# Where a node's CPU goes per request, by thread group: starts one node or a 3-node cluster
# (SETUP=single|cluster, default cluster; each node -Xmx256m, cluster nodes --io-threads 1 as
# cluster-vs-node.sh gives them on 2 cores), warms it up with closed-loop load (40 s of PUT of
# unique keys, or a 200,000-key fill and 20 s of GET), then runs the measured load (SECS, default
# 15 s, at RATE req/s, default 0 = closed loop, 64 connections) and prints the nodes' CPU time
# between the start and the end of that run, per thread group (event loops, storage threads, flush,
# compaction, JIT compilers, GC) and per node, in seconds and in microseconds per request, beside
# the machine's idle share. The load generator's own CPU is not counted.
# Usage: [SETUP=cluster] [SECS=15] [RATE=0] [REWARM=0] [JAR=cli/target/dht.jar] bench/scripts/thread-cpu.sh put|get [JVM options for the nodes...]
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
workload="${1:?usage: thread-cpu.sh put|get [JVM options...]}"; shift
opts=("$@")
setup="${SETUP:-cluster}"; secs="${SECS:-15}"; rate="${RATE:-0}"; jar="${JAR:-$root/cli/target/dht.jar}"
[ -f "$jar" ] || (cd "$root" && mvn -B -q -DskipTests -pl cli -am package)
if [ "$setup" = single ]; then ports=(19101); io=(); else ports=(19201 19202 19203); io=(--io-threads 1); fi
list=""; for p in "${ports[@]}"; do list="${list:+$list,}http://127.0.0.1:$p"; done
dir="$(mktemp -d /tmp/dht-thread-cpu.XXXXXX)"
pids=()
cleanup() { for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
for p in "${ports[@]}"; do
  "${java[@]}" -Xmx256m "${opts[@]}" -jar "$jar" serve --port "$p" --data "$dir/data-$p" --cluster "$list" \
    --self "http://127.0.0.1:$p" "${io[@]}" >"$dir/node-$p.log" 2>&1 &
  pids+=($!)
done
for p in "${ports[@]}"; do wait_ready "http://127.0.0.1:$p"; done
bench() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
if [ "$workload" = put ]; then
  load=(-w put --distribution sequential --keys 2000000000)
  bench --url "$list" "${load[@]}" -c 64 -t 2 -R 0 -d 40s --warmup 0s --seed $RANDOM >/dev/null
else
  load=(-w get --keys 200000)
  bench fill --url "$list" --count 200000 --value-size 100 -c 64 >/dev/null
  wait_quiet ${list//,/ } >/dev/null
  bench --url "$list" "${load[@]}" -c 64 -t 2 -R 0 -d 20s --warmup 0s >/dev/null
fi
# REWARM (seconds, default 0): a second warm-up run on fresh connections, so that the JIT's
# recompiles when a new generator connects (see benchmarks.md, "Batched replica writes") fall
# before the measured run instead of into it.
[ "${REWARM:-0}" = 0 ] || bench --url "$list" "${load[@]}" -c 64 -t 2 -R 0 -d "${REWARM}s" --warmup 0s --seed $RANDOM >/dev/null
cpu() { awk '/^cpu / {print $2+$3+$4+$5+$6+$7+$8+$9, $5}' /proc/stat; }
names=(); i=0; for p in "${pids[@]}"; do names+=("$p=node$i"); i=$((i + 1)); done
"$root/bench/scripts/thread-cpu.py" snap "${pids[@]}" >"$dir/before.json"
read -r total0 idle0 < <(cpu)
out="$(bench --url "$list" "${load[@]}" -c 64 -t 2 -R "$rate" -d "${secs}s" --warmup 0s --seed $RANDOM)"
read -r total1 idle1 < <(cpu)
"$root/bench/scripts/thread-cpu.py" snap "${pids[@]}" >"$dir/after.json"
rps="$(echo "$out" | awk '/^Requests\/sec/ {gsub(",", "", $2); print $2}')"
p99="$(echo "$out" | awk '/^ +99\.000%/ {print $2}')"
machine_line
echo "$setup $workload, ${secs}s at rate $rate (0 = closed loop), node options '${opts[*]:-}': $rps req/s, p99 $p99, machine idle $((100 * (idle1 - idle0) / (total1 - total0)))%"
"$root/bench/scripts/thread-cpu.py" diff "$dir/before.json" "$dir/after.json" \
  "$(awk -v r="$rps" -v s="$secs" 'BEGIN {printf "%d", r * s}')" "${names[@]}"
