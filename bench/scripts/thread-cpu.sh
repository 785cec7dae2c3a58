#!/usr/bin/env bash
# Where a node's CPU goes per request, by thread group: starts one node or a 3-node cluster
# (SETUP=single|cluster|nginx, default cluster; nginx: Debian's nginx-light answering a static 200,
# its worker processes measured as the node would be; started by common.sh's start_nodes as cluster-vs-node.sh
# starts them: each node -Xmx256m, cluster nodes their share of event loops), warms it up with closed-loop load (40 s of PUT of
# unique keys, or a fill of KEYS keys, default 200,000, and 20 s of GET), then runs the measured load (SECS, default
# 15 s, at RATE req/s, default 0 = closed loop, 64 connections) and prints the nodes' CPU time
# between the start and the end of that run, per thread group (event loops, storage threads, flush,
# compaction, JIT compilers, GC) and per node, in seconds and in microseconds per request, beside
# the machine's idle share, and the load generator's own CPU on a line of its own.
# GEN_ARGS: more options for the measured run's generator (dht bench), e.g. --spin 0us;
# GEN_WARMUP: its own warm-up in seconds before the window (default 5); GEN_JAVA_OPTS: its JVM options.
# NODE_CPUS / GEN_CPUS: CPU lists (taskset -c) to confine the nodes' threads and the generator to.
# Usage: [SETUP=cluster|single|nginx] [SECS=15] [RATE=0] [REWARM=0] [KEYS=200000] [TOPUP=0] [JAR=cli/target/dht.jar] bench/scripts/thread-cpu.sh put|get [JVM options for the nodes...]
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
workload="${1:?usage: thread-cpu.sh put|get [JVM options...]}"; shift
opts=("$@")
setup="${SETUP:-cluster}"; secs="${SECS:-15}"; rate="${RATE:-0}"; jar="${JAR:-$root/cli/target/dht.jar}"
[ "$secs" -ge 3 ] || { echo "SECS must be at least 3 (the CPU is measured over SECS - 2 seconds)" >&2; exit 2; }
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
case "$setup" in single|nginx) ports=(19101) ;; *) ports=(19201 19202 19203) ;; esac
list="$(node_urls "${ports[@]}")"
dir="$(mktemp -d /tmp/dht-thread-cpu.XXXXXX)"
pids=(); gen=""
cleanup() { for p in "${pids[@]:-}" $gen; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$dir"; }
if [ "$setup" = nginx ]; then
  # The ceiling of HTTP on this machine, measured the same way: nginx's workers stand for the node.
  . "$root/bench/scripts/nginx.sh"
  start_nginx "${ports[0]}" "$dir/nginx"
  trap 'kill "$(cat "$dir/nginx/nginx.pid")" 2>/dev/null; cleanup' EXIT
  workers=($(pgrep -P "$(cat "$dir/nginx/nginx.pid")" || true))
  [ "${#workers[@]}" -gt 0 ] || { echo "nginx started no worker processes" >&2; exit 1; }
else
  trap cleanup EXIT
  start_nodes "$jar" "${opts[*]:-}" "${ports[@]}"
fi
if [ -n "${NODE_CPUS:-}" ]; then for p in "${pids[@]}"; do taskset -a -cp "$NODE_CPUS" "$p" >/dev/null; done; fi
pin=(); [ -z "${GEN_CPUS:-}" ] || pin=(taskset -c "$GEN_CPUS")
bench() { "${pin[@]}" "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
# A PUT run writes keys no earlier run wrote: each gets its own range (fresh_keys, common.sh).
load_start=()
new_range() { if [ "$workload" = put ]; then fresh_keys; load_start=(--start "$start_at"); fi; }
if [ "$workload" = put ]; then
  load=(-w put --distribution sequential --keys 2000000000)
  new_range
  bench --url "$list" "${load[@]}" "${load_start[@]}" -c 64 -t 2 -R 0 -d 40s --warmup 0s --seed $RANDOM >/dev/null
else
  keys="${KEYS:-200000}"
  load=(-w get --keys "$keys")
  if [ "$setup" != nginx ]; then
    bench fill --url "$list" --count "$keys" --value-size 100 -c 64 >/dev/null
    wait_quiet ${list//,/ } >/dev/null
    # TOPUP (MiB, default 0): then write keys past the read key space, 10,000 at a time, until the
    # first node's active memtable holds at least that much, so that the reads, none of which finds
    # its key there, still search a full memtable (after a fill alone its size is a matter of luck).
    next="$keys"
    while [ "${TOPUP:-0}" != 0 ] && [ "$(curl -s "${list%%,*}/v0/status" | grep -o '"memtableBytes":[0-9]*' | cut -d: -f2)" -lt $((TOPUP << 20)) ]; do
      bench fill --url "$list" --start "$next" --count 10000 --value-size 100 -c 64 >/dev/null
      next=$((next + 10000))
      wait_quiet ${list//,/ } >/dev/null
    done
  fi
  bench --url "$list" "${load[@]}" -c 64 -t 2 -R 0 -d 20s --warmup 0s >/dev/null
fi
# REWARM (seconds, default 0): a second warm-up run on fresh connections, so that the JIT's
# recompiles when a new generator connects (see benchmarks.md, "Batched replica writes") fall
# before the measured run instead of into it.
new_range
[ "${REWARM:-0}" = 0 ] || bench --url "$list" "${load[@]}" "${load_start[@]}" -c 64 -t 2 -R 0 -d "${REWARM}s" --warmup 0s --seed $RANDOM >/dev/null
new_range
cpu() { awk '/^cpu / {print $2+$3+$4+$5+$6+$7+$8+$9, $5}' /proc/stat; }
names=()
if [ "$setup" = nginx ]; then
  pids=("${workers[@]}"); for p in "${pids[@]}"; do names+=("$p=nginx-worker-$p"); done
else
  i=0; for p in "${pids[@]}"; do names+=("$p=node$i"); i=$((i + 1)); done
fi
# The measured run is one generator JVM: GEN_WARMUP seconds (default 5) of its own warm-up at the
# same rate, so that its JIT and first connections fall outside the window, then SECS measured. Its
# progress lines (stderr, one a second) time the snapshots: at the first "measure" line and at the
# one before the last (the last is not printed when every connection is done before its tick), so
# the CPU figures cover SECS - 2 whole seconds of the window, and so do the requests counted (the
# sum of those lines). The generator's CPU comes from /proc at the same instants.
proc_cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
"${pin[@]}" "${java[@]}" ${GEN_JAVA_OPTS:-} -cp "$jar" dht.bench.BenchMain --url "$list" "${load[@]}" "${load_start[@]}" -c 64 -t 2 -R "$rate" -d "${secs}s" \
  --warmup "${GEN_WARMUP:-5}s" --seed $RANDOM ${GEN_ARGS:-} >"$dir/gen.out" 2>"$dir/gen.err" &
gen=$!
seen=0; ops=0
while IFS= read -r line; do
  [[ "$line" == *" measure "* ]] || continue
  seen=$((seen + 1))
  if [ "$seen" = 1 ]; then
    "$root/bench/scripts/thread-cpu.py" snap "${pids[@]}" >"$dir/before.json"
    read -r total0 idle0 < <(cpu); gen0="$(proc_cpu "$gen")"
  else
    ops=$((ops + $(echo "$line" | awk '{gsub(",", "", $3); print $3}')))
  fi
  if [ "$seen" = $((secs - 1)) ]; then
    "$root/bench/scripts/thread-cpu.py" snap "${pids[@]}" >"$dir/after.json"
    read -r total1 idle1 < <(cpu); gen1="$(proc_cpu "$gen")"
    break
  fi
done < <(tail -n +1 -F --pid="$gen" "$dir/gen.err" 2>/dev/null)
rc=0; wait "$gen" || rc=$?
gen=""
if [ "$rc" != 0 ] || [ "$seen" -lt $((secs - 1)) ]; then
  echo "the generator exited with $rc after $seen measured seconds of $secs:" >&2; cat "$dir/gen.err" "$dir/gen.out" >&2; exit 1
fi
out="$(cat "$dir/gen.out")"
rps="$(echo "$out" | awk '/^Requests\/sec/ {gsub(",", "", $2); print $2}')"
p99="$(echo "$out" | awk '/^ +99\.000%/ {print $2}')"
machine_line
echo "$setup $workload, ${secs}s at rate $rate (0 = closed loop) after ${GEN_WARMUP:-5}s, node options '${opts[*]:-}': $rps req/s, p99 $p99; over the $((secs - 2)) s measured for CPU: $ops requests, machine idle $((100 * (idle1 - idle0) / (total1 - total0)))%"
tick="$(getconf CLK_TCK)"
awk -v a="$gen0" -v b="$gen1" -v t="$tick" -v n="$ops" \
  'BEGIN {printf "load generator (not in the totals below): %.2f s, %.1f us per request\n", (b - a) / t, 1e6 * (b - a) / t / n}'
"$root/bench/scripts/thread-cpu.py" diff "$dir/before.json" "$dir/after.json" "$ops" "${names[@]}"
