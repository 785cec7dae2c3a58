#!/usr/bin/env bash
# Where a 1-connection tail comes from: one node -Xmx128m with 100,000 keys of 100 bytes, GET over
# one connection at RATE req/s for SECS s after 10 s of warm-up, once per generator JVM variant in
# GENS and round (WARMUP seconds, default 10); node and generator write GC and safepoint logs, the generator its timeline (worst
# latency per 100 ms), and with WHO=1 bench/scripts/who-ran.py samples every thread's CPU and
# run-queue wait and explains the five slowest slots. Files stay in OUT (default /tmp/dht-tail).
#   GENS  "name@jvm-options ..." (options comma-separated), default "g1@ g1-xmn1g@-Xmn1g zgc@-XX:+UseZGC"
# Usage: bench/scripts/one-connection-tail.sh [RATE] [SECS] [ROUNDS]   (defaults 10000, 30, 2)
set -u
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
jar=$root/cli/target/dht.jar
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
rate="${1:-10000}"; secs="${2:-30}"; rounds="${3:-2}"; warmup="${WARMUP:-10}"
out="${OUT:-/tmp/dht-tail}"; port=9561; url=http://127.0.0.1:$port
read -r -a gens <<< "${GENS:-g1@ g1-xmn1g@-Xmn1g zgc@-XX:+UseZGC}"
logs() { echo "-Xlog:gc*=info,safepoint=info:file=$1:time,uptime,level,tags"; }
machine_line; echo "date: $(date -u +%FT%TZ), GET, 1 connection, $rate req/s, ${secs}s after ${warmup}s of warm-up"
for round in $(seq 1 "$rounds"); do
  for g in "${gens[@]}"; do
    name="${g%%@*}"; opts="${g#*@}"; opts="${opts//,/ }"; d="$out/$name-$round"
    rm -rf "$d"; mkdir -p "$d"
    "${java[@]}" -Xmx128m "$(logs "$d/node-gc.log")" -jar "$jar" serve --port $port --data "$d/data" >"$d/node.log" 2>&1 &
    pid=$!
    wait_ready "$url"
    "${java[@]}" -cp "$jar" dht.bench.BenchMain fill --url "$url" --count 100000 --value-size 100 -c 64 >/dev/null 2>&1
    sleep 5
    [ "${WHO:-0}" = 1 ] && { python3 "$root/bench/scripts/who-ran.py" sample "$d/who-ran.txt" $((secs + warmup + 5)) & }
    # shellcheck disable=SC2086 # $opts: zero or more JVM options
    "${java[@]}" $opts "$(logs "$d/gen-gc.log")" -cp "$jar" dht.bench.BenchMain --url "$url" -w get --keys 100000 \
      -c 1 -t 1 -R "$rate" -d "${secs}s" --warmup "${warmup}s" --out "$d/run" >"$d/bench.out" 2>&1
    kill "$pid"; wait "$pid" 2>/dev/null; rm -rf "$d/data"
    echo "round $round generator $name: $(awk '/^ +50\.000%/ {p50=$2} /^ +99\.000%/ {p99=$2} /^ +100\.000%/ {mx=$2} /^Requests\/sec/ {rps=$2}
      END {printf "%s req/s, p50 %s, p99 %s, max %s", rps, p50, p99, mx}' "$d/bench.out"); young pauses: generator \
$(grep -c 'Pause Young' "$d/gen-gc.log"), node $(grep -c 'Pause Young' "$d/node-gc.log"); 100 ms slots with a request over 10 ms: \
$(awk '!/^#/ && $3 > 10' "$d/run/timeline.txt" | wc -l)"
    if [ "${WHO:-0}" = 1 ]; then wait; python3 "$root/bench/scripts/who-ran.py" explain "$d/who-ran.txt" "$d/run/timeline.txt" 5 > "$d/who-ran-explained.txt"; fi
  done
done
