#!/usr/bin/env bash
# Heap allocated per PUT and the collections it costs, builds side by side: one node -Xmx128m
# (-Xlog:gc), 100-byte values, 64 connections; 20 s of closed-loop warm-up, then SECS at a constant
# RATE: rate, tail, the node's bytes allocated per request (dht bench's "Node allocation" line) and
# the G1 young pauses during the run; then, with PROFILE=1, 20 s more at that rate with an
# allocation flame graph (under OUT). Builds alternate within each round.
#   JARS="a/dht.jar b/dht.jar"  the builds (default: this checkout's jar)
#   RATE (default 30000), SECS (default 30), OUT (default /tmp/dht-put-alloc), PORT (default 19311)
# Usage: bench/scripts/put-alloc.sh [ROUNDS]     (default 2)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
rounds="${1:-2}"
rate="${RATE:-30000}"
secs="${SECS:-30}"
out="${OUT:-/tmp/dht-put-alloc}"
jars=(${JARS:-$root/cli/target/dht.jar})
[ -f "${jars[0]%%@*}" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
dir="$(mktemp -d /tmp/dht-put-alloc.XXXXXX)"
mkdir -p "$out"
port="${PORT:-19311}"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
machine_line
for round in $(seq 1 "$rounds"); do
  for spec in "${jars[@]}"; do
    build_spec "$spec"
    rm -rf "$dir/data" "$dir/gc.log"
    # shellcheck disable=SC2086 # $opts: zero or more JVM options
    "${java[@]}" -Xmx128m $opts -Xlog:gc:file="$dir/gc.log":uptime -jar "$jar" serve --port "$port" \
      --data "$dir/data" >"$dir/node.log" 2>&1 &
    pid=$!
    wait_ready "http://127.0.0.1:$port" 100
    load=(-cp "$jar" dht.bench.BenchMain --url "http://127.0.0.1:$port" -w put --distribution sequential
          --keys 2000000000 --value-size 100 -c 64 -t 2)
    fresh_keys
    "${java[@]}" "${load[@]}" --start "$start_at" -R 0 -d 20s --warmup 0s >/dev/null 2>&1
    since=$(awk 'END {print $1}' "$dir/gc.log" | tr -d '[]s')
    fresh_keys
    summary=$("${java[@]}" "${load[@]}" --start "$start_at" -R "$rate" -d "${secs}s" --warmup 5s --seed $RANDOM 2>/dev/null)
    pauses=$(awk -v since="${since:-0}" '/Pause Young/ { t = $1; gsub(/[][s]/, "", t); if (t + 0 <= since + 0) next;
      d = $NF; sub(/ms$/, "", d); n++; sum += d; if (d + 0 > mx) mx = d + 0 }
      END {printf "young pauses %d, %.0f ms in all, longest %.1f ms", n, sum, mx}' "$dir/gc.log")
    alloc=$(echo "$summary" | awk '/^Node allocation:/ {print $3 " bytes/request"}')
    echo "round $round $label: $(echo "$summary" | percentiles); $alloc; $pauses (since JVM uptime ${since:-0} s)"
    if [ "${PROFILE:-0}" = 1 ]; then
      prof="$out/round$round-$label"
      rm -rf "$prof"
      fresh_keys
      "${java[@]}" "${load[@]}" --start "$start_at" -R "$rate" -d 20s --warmup 5s --profile alloc --out "$prof" \
        >/dev/null 2>&1 || echo "profile run failed"
      echo "  flame graph: $prof"
    fi
    kill "$pid"; wait "$pid" 2>/dev/null || true
    pid=""
  done
done
