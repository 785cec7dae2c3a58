#!/usr/bin/env bash
# Where do PUT tail latencies come from? One node (-Xmx256m), 1 KB values so the 16 MiB memtable
# rotates and flushes every few seconds; 20 s of closed-loop warm-up, then 30 s at a constant RATE
# (default 6000 req/s) over 64 connections; p50/p99/p99.9/max per variant, variants alternating,
# and the node's G1 young pauses during the run (count, total, longest; from -Xlog:gc).
#   RATE="25000 35000"  several rates, one 30 s run each, in that order on the same node;
#   VALUE_SIZE=100  value bytes (default 1024);  HEAP=128m  the node's -Xmx (default 256m);
#   JARS="a/dht.jar b/dht.jar@-Dx=y"  compares builds, or one build with node JVM options
#                                     (default: this checkout's jar);
#   GCS="-XX:+UseG1GC -XX:+UseZGC"  compares collectors (default: the JVM's default).
#   MEASURE_WARMUP=8s  how long each constant-rate run goes before it measures (default 8s: a fresh
#                      generator's first seconds hit the node in bursts; see docs/benchmarks.md).
# Usage: bench/scripts/put-stalls.sh [ROUNDS]     (default 2)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
rounds="${1:-2}"
rates=(${RATE:-6000})
value_size="${VALUE_SIZE:-1024}"
heap="${HEAP:-256m}"
jars=(${JARS:-$root/cli/target/dht.jar})
gcs=(${GCS:--XX:+UseG1GC})
[ -f "${jars[0]%%@*}" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
measure_warmup="${MEASURE_WARMUP:-8s}"
dir="$(mktemp -d /tmp/dht-put-stalls.XXXXXX)"
port=19301
machine_line
for round in $(seq 1 "$rounds"); do
  for spec in "${jars[@]}"; do
    build_spec "$spec"
    for gc in "${gcs[@]}"; do
      rm -rf "$dir/data"
      # shellcheck disable=SC2086 # $opts: zero or more JVM options
      "${java[@]}" -Xmx"$heap" "$gc" $opts -Xlog:gc:file="$dir/gc.log":uptime -jar "$jar" serve --port "$port" \
        --data "$dir/data" >"$dir/node.log" 2>&1 &
      pid=$!
      wait_ready "http://127.0.0.1:$port" 100 || { kill "$pid"; exit 1; }
      load=(-cp "$jar" dht.bench.BenchMain --url "http://127.0.0.1:$port" -w put --distribution sequential
            --keys 2000000000 --value-size "$value_size" -c 64 -t 2)
      "${java[@]}" "${load[@]}" -R 0 -d 20s --warmup 0s >/dev/null 2>&1
      for rate in "${rates[@]}"; do
        since=$(awk 'END {print $1}' "$dir/gc.log" | tr -d '[]s') # the JVM's uptime at the last GC line
        line=$("${java[@]}" "${load[@]}" -R "$rate" -d 30s --warmup "$measure_warmup" --seed $RANDOM 2>/dev/null | percentiles)
        pauses=$(awk -v since="${since:-0}" '/Pause Young/ { t = $1; gsub(/[][s]/, "", t); if (t + 0 <= since + 0) next;
          d = $NF; sub(/ms$/, "", d); n++; sum += d; if (d + 0 > mx) mx = d + 0 }
          END {printf "young pauses %d, %.0f ms in all, longest %.1f ms", n, sum, mx}' "$dir/gc.log")
        echo "round $round $label $gc: $line; $pauses"
      done
      kill "$pid"; wait "$pid" 2>/dev/null || true
    done
  done
done
rm -rf "$dir"
