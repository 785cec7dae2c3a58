#!/usr/bin/env bash
# One node at a constant PUT rate, with the moments of its slowest requests: starts a node
# (-Xmx128m, fresh data directory), warms it up with 40 s of closed-loop PUT of unique keys, then
# runs 30 s at RATE over 64 connections with --out, and prints p50/p99/p99.9 and the twelve slowest
# 100 ms slots of the timeline (compare their times with the node's flush and compaction lines,
# kept in the printed directory's node.log, and its GC log gc.log).
# SERVE_ARGS passes options to `serve` (e.g. "--memtable-size 67108864"); JAVA_OPTS to the node's
# JVM; RENICE=N renices the node's flush and compaction threads to N after the warm-up.
# Usage: bench/scripts/put-timeline.sh [JAR] [RATE]      (defaults cli/target/dht.jar, 60000)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
jar="${1:-$root/cli/target/dht.jar}"
rate="${2:-60000}"
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
dir="$(mktemp -d /tmp/dht-put-timeline.XXXXXX)"
url=http://127.0.0.1:19301
"${java[@]}" -Xmx128m ${JAVA_OPTS:-} -Xlog:gc:file="$dir/gc.log":uptime,utctime -jar "$jar" serve --port 19301 \
  --data "$dir/data" ${SERVE_ARGS:-} >"$dir/node.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir/data"' EXIT
wait_ready "$url"
bench() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
machine_line
echo "date: $(date -u +%FT%TZ), PUT at $rate/s for 30 s after 40 s of closed-loop warm-up${SERVE_ARGS:+, serve $SERVE_ARGS}${RENICE:+, background threads reniced to $RENICE}"
fresh_keys # the warm-up and the measured run each write keys of their own
bench --url "$url" -w put --distribution sequential --keys 2000000000 --start "$start_at" -c 64 -t 2 -R 0 -d 40s --warmup 0s >/dev/null
fresh_keys
if [ -n "${RENICE:-}" ]; then
  for t in /proc/$pid/task/*; do
    case "$(cat "$t/comm")" in dht-storage-fl*|dht-storage-co*) renice -n "$RENICE" -p "$(basename "$t")" >/dev/null ;; esac
  done
fi
bench --url "$url" -w put --distribution sequential --keys 2000000000 --start "$start_at" -c 64 -t 2 -R "$rate" -d 30s --warmup 5s \
  --out "$dir/out" >"$dir/bench.txt"
grep -E '^ +(50|99|99\.9)\.0+%' "$dir/bench.txt"
echo "slowest 100 ms slots (intended send time, worst latency in ms):"
grep -v '^#' "$dir/out/timeline.txt" | sort -k3 -n -r | head -12
echo "kept: $dir"
