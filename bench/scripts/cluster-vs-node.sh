#!/usr/bin/env bash
# Issue #4's cluster benchmark, beside a single node in the same run: a 3-node cluster on this
# machine with the default 2/3 quorum, and one node alone, each serving PUT (unique keys) and GET
# (on KEYS keys filled first) at 64 connections (CONNS):
#   - maximum throughput, closed loop (dht bench -R 0), and
#   - the highest constant rate with p99 under 10 ms (dht bench sweep).
# Every node runs with -Xmx256m and the default --sync periodic; the cluster is three separate JVMs,
# each with its share of event loops (--io-threads 2*cores/3, at least 1, as bin/dht cluster starts
# them; IO_THREADS=N overrides, IO_THREADS=0 is Netty's default of 2*cores each, IO_THREADS=none
# passes no flag, for builds before 25 Nov evening); the single node keeps the default.
# JARS (space-separated) compares builds side by side: each phase runs once per jar, alternating;
# an entry jar@-Dx=y,-Dz=w runs that build's nodes with those JVM options (as in hot-path.sh);
# ROUNDS (default 1) repeats the whole comparison; SETUPS (default "single cluster") picks the setups;
# WORKLOADS (default "put get") the workloads; "mixed" adds GET and PUT together on the KEYS filled
# keys (READ_RATIO, default 0.5, of them GETs; a PUT overwrites a filled key), measured like GET. Each workload gets fresh nodes: GET reads a database
# holding just the KEYS keys of its fill, once the fill's flushes and compactions are done. (Until
# 25 Nov it ran on the PUT phase's nodes, where every PUT run had rewritten keys from k0000000000
# up, so each key read had versions in several tables: see benchmarks.md.)
# WARMUP (default 40 s) of untimed closed-loop load, through every node, precedes each workload's
# measurements: three fresh JVMs JIT-compiling on two cores take that long to reach steady state
# (cold, the cluster measured 1,100-3,000 PUT/s; warm, 8,000-9,000).
# REWARM (default 10 s; 0 = none, as before 26 Nov): a second warm-up run with fresh connections
# right before the measurements. When a new generator connects, the JIT deoptimises and recompiles
# part of Netty's pipeline (about 4 s of C2 CPU on a 3-node cluster, measured with thread-cpu.sh);
# without this second run that burst fell into the first measured run (benchmarks.md, "Batched
# replica writes").
# SERVE_ARGS (default none) are added to every node's serve command, e.g. "--sync every-write".
# RATES (default none), e.g. "2500 3500": also a 15 s run at each of those constant rates (after 5 s
# unmeasured), printing its p99 -- finer than the sweep's steps; SWEEP=0 skips the sweeps.
# CONNS (default 64) sets the client connections (issue #3's other target is 1 connection).
# Usage: bench/scripts/cluster-vs-node.sh [SECONDS] [KEYS]     (defaults 8 s, 200000 keys)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
secs="${1:-8}"
keys="${2:-200000}"
rounds="${ROUNDS:-1}"
setups=(${SETUPS:-single cluster})
workloads=" ${WORKLOADS:-put get} "
warmup="${WARMUP:-40}"
rewarm="${REWARM:-10}"
read_ratio="${READ_RATIO:-0.5}"
jars=(${JARS:-$root/cli/target/dht.jar})
[ -f "${jars[0]%%@*}" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
dir="$(mktemp -d /tmp/dht-cluster-vs-node.XXXXXX)"
pids=()
cleanup() { kill_pids; }
trap cleanup EXIT

stop_nodes() { cleanup; pids=(); rm -rf "$dir"/data-*; }

bench() { "${java[@]}" -cp "${jars[0]%%@*}" dht.bench.BenchMain "$@" 2>/dev/null; }
closed_line() {
  bench "$@" | awk '/^ +50\.000%/ {p50=$2} /^ +99\.000%/ {p99=$2} /^Requests\/sec/ {rps=$2} END {printf "%s req/s (p50 %s, p99 %s)", rps, p50, p99}'
}
sweep_line() { bench sweep "$@" | awk '/highest stable rate/ {print $4" req/s"}'; }
rate_line() {
  bench "$@" | awk '/^ +50\.000%/ {p50=$2} /^ +99\.000%/ {p99=$2} /^ +99\.900%/ {p999=$2} /^Requests\/sec/ {rps=$2} END {printf "%s req/s, p50 %s, p99 %s, p99.9 %s", rps, p50, p99, p999}'
}
rates=(${RATES:-})
sweeps="${SWEEP:-1}"
conns="${CONNS:-64}"
threads=$((conns < 2 ? conns : 2))

# filled_phase LABEL LOAD...: fresh nodes holding the KEYS keys of a fill, once its flushes and
# compactions are done, warmed up under LOAD, then measured under it (closed loop, RATES, sweep).
# Uses the loop's variables: round, name, jar, opts, ports, urls.
filled_phase() {
  local label="$1"; shift
  start_nodes "$jar" "$opts" "${ports[@]}"
  bench fill --url "$urls" --count "$keys" --value-size 100 -c 64 >/dev/null
  wait_quiet ${urls//,/ }
  bench --url "$urls" "$@" -c "$conns" -t "$threads" -R 0 -d "$((warmup / 2))s" --warmup 0s >/dev/null
  [ "$rewarm" = 0 ] || bench --url "$urls" "$@" -c "$conns" -t "$threads" -R 0 -d "${rewarm}s" --warmup 0s >/dev/null
  echo "round $round $name $label closed: $(closed_line --url "$urls" "$@" -c "$conns" -t "$threads" -R 0 -d "${secs}s" --warmup 2s)"
  local r
  for r in "${rates[@]}"; do
    echo "round $round $name $label at $r/s: $(rate_line --url "$urls" "$@" -c "$conns" -t "$threads" -R "$r" -d 15s --warmup 5s)"
  done
  [ "$sweeps" = 0 ] || echo "round $round $name $label sweep p99<10ms: $(sweep_line --url "$urls" "$@" -c "$conns" -t "$threads" --start-rate 4000 --max-steps 8)"
  stop_nodes
}

machine_line
echo "date: $(date -u +%FT%TZ), ${secs}s per closed-loop run after ${warmup}s of warm-up and ${rewarm}s more on fresh connections, $keys keys for GET, sweeps in 5 s steps, $conns connections"
for round in $(seq 1 "$rounds"); do
  for spec in "${jars[@]}"; do
    build_spec "$spec"
    for setup in "${setups[@]}"; do
      if [ "$setup" = single ]; then ports=(19101); else ports=(19201 19202 19203); fi
      urls="$(node_urls "${ports[@]}")"
      name="$label/$setup"
      if [[ "$workloads" == *" put "* ]]; then
        start_nodes "$jar" "$opts" "${ports[@]}"
        bench --url "$urls" -w put --distribution sequential --keys 2000000000 -c "$conns" -t "$threads" -R 0 -d "${warmup}s" --warmup 0s --seed $RANDOM >/dev/null
        [ "$rewarm" = 0 ] || bench --url "$urls" -w put --distribution sequential --keys 2000000000 -c "$conns" -t "$threads" -R 0 -d "${rewarm}s" --warmup 0s --seed $RANDOM >/dev/null
        echo "round $round $name PUT closed: $(closed_line --url "$urls" -w put --distribution sequential --keys 2000000000 -c "$conns" -t "$threads" -R 0 -d "${secs}s" --warmup 2s --seed $RANDOM)"
        for r in "${rates[@]}"; do
          echo "round $round $name PUT at $r/s: $(rate_line --url "$urls" -w put --distribution sequential --keys 2000000000 -c "$conns" -t "$threads" -R "$r" -d 15s --warmup 5s --seed $RANDOM)"
        done
        [ "$sweeps" = 0 ] || echo "round $round $name PUT sweep p99<10ms: $(sweep_line --url "$urls" -w put --distribution sequential --keys 2000000000 -c "$conns" -t "$threads" --start-rate 4000 --max-steps 8 --seed $RANDOM)"
        stop_nodes
      fi
      if [[ "$workloads" == *" get "* ]]; then filled_phase GET -w get --keys "$keys"; fi
      if [[ "$workloads" == *" mixed "* ]]; then filled_phase MIXED -w mixed --read-ratio "$read_ratio" --keys "$keys"; fi
    done
  done
done
