#!/usr/bin/env bash
# Compares dht bench with Debian's wrk against nginx on this machine, side by side:
#   1. closed-loop throughput at 1 connection and at 64 connections (wrk, then dht bench, ROUNDS times);
#   2. dht bench's p99 at 1 connection and 1,000 req/s (the real round trip is ~0.1-0.2 ms).
# Needs nginx and wrk (apt-get install -y nginx-light wrk). Usage: bench/scripts/vs-wrk.sh [ROUNDS] [SECONDS]
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bin/java-env.sh"
dht_find_jdk
rounds="${1:-3}"
secs="${2:-10}"
port=18080
dir="$(mktemp -d /tmp/dht-vs-wrk.XXXXXX)"
. "$root/bench/scripts/nginx.sh"
start_nginx "$port" "$dir"
jar="$root/cli/target/dht.jar"
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
bench() { "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
url="http://127.0.0.1:$port/v0/entity?id=k0000000001"
echo "machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
for c in 1 64; do
  t=$([ "$c" = 1 ] && echo 1 || echo 2)
  for r in $(seq "$rounds"); do
    w=$(wrk -t"$t" -c"$c" -d"${secs}s" "$url" | awk '/Requests\/sec/ {print $2}')
    d=$(bench --url "http://127.0.0.1:$port" -c "$c" -t "$t" -R 0 -d "${secs}s" --warmup 5s | awk '/Requests\/sec/ {print $2}')
    echo "connections $c round $r: wrk $w req/s, dht bench $d req/s, ratio $(awk -v a="$d" -v b="$w" 'BEGIN {printf "%.2f", a/b}')"
  done
done
for r in $(seq "$rounds"); do
  bench --url "http://127.0.0.1:$port" -c 1 -R 1000 -d "${secs}s" --warmup 3s \
    | awk -v r="$r" '/^ +(50|99|99\.9)\.?0*%/ {p[$1]=$2} /^Generator send lag/ {lag=$0} END {print "1 connection 1000 req/s round " r ": p50 " p["50.000%"] " p99 " p["99.000%"] " p99.9 " p["99.900%"] "; " lag}'
done
