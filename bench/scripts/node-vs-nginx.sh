#!/usr/bin/env bash
# Issue #3's single-node benchmark, side by side with nginx in one run:
#   for each node heap (128m, 1g): PUT of unique keys (write-ahead log on) and GET on a database of
#   KEYS keys, at 1 and 64 connections: maximum throughput with Debian's wrk (closed loop), then
#   dht bench at the issue's target rates (15,000 req/s on 1 connection, 60,000 on 64) with p99;
#   nginx (static 200) under the same wrk and dht bench runs: the ceiling of HTTP here.
# Needs nginx-light and wrk (apt-get install -y nginx-light wrk).
# Usage: bench/scripts/node-vs-nginx.sh [SECONDS] [KEYS]      (defaults 10 s, 1000000 keys)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
secs="${1:-10}"
keys="${2:-1000000}"
nginx_port=18080
node_port=18090
dir="$(mktemp -d /tmp/dht-node-vs-nginx.XXXXXX)"
. "$root/bench/scripts/nginx.sh"
start_nginx "$nginx_port" "$dir"
jar="$root/cli/target/dht.jar"
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
bench() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
wrk_rate() { wrk "$@" | awk '/Requests\/sec/ {print $2}'; }
bench_line() { # prints "achieved p50 p99" of a dht bench run
  bench "$@" | awk '/^ +50\.000%/ {p50=$2} /^ +99\.000%/ {p99=$2} /^Requests\/sec/ {rps=$2} END {printf "%s req/s, p50 %s, p99 %s", rps, p50, p99}'
}
threads() { [ "$1" = 1 ] && echo 1 || echo 2; }
target() { [ "$1" = 1 ] && echo 15000 || echo 60000; }

machine_line
echo "date: $(date -u +%FT%TZ), duration ${secs}s per run, $keys keys for GET"
for c in 1 64; do
  t=$(threads "$c")
  echo "nginx c=$c: wrk $(wrk_rate -t"$t" -c"$c" -d"${secs}s" "http://127.0.0.1:$nginx_port/") req/s;" \
       "dht bench at $(target "$c") req/s: $(bench_line --url "http://127.0.0.1:$nginx_port" -w get -c "$c" -t "$t" -R "$(target "$c")" -d "${secs}s" --warmup 3s)"
done
start_node() { # heap workload: a node on a fresh data directory
  "${java[@]}" "-Xmx$1" -jar "$jar" serve --port "$node_port" --data "$dir/node-$1-$2" >"$dir/node-$1-$2.log" 2>&1 &
  pid=$!
  wait_ready "http://127.0.0.1:$node_port" || { kill "$pid"; exit 1; }
}
url="http://127.0.0.1:$node_port"
for heap in 128m 1g; do
  start_node "$heap" put
  for c in 1 64; do
    t=$(threads "$c")
    # Unique keys: each wrk thread writes its own sequential slice (bench/wrk2/common.lua).
    fresh_keys
    w=$(KEYS=2000000000 DISTRIBUTION=sequential START="$start_at" SEED=$RANDOM wrk_rate -t"$t" -c"$c" -d"${secs}s" -s "$root/bench/wrk2/put.lua" "$url")
    fresh_keys
    b=$(bench_line --url "$url" -w put --distribution sequential --keys 2000000000 --start "$start_at" -c "$c" -t "$t" -R "$(target "$c")" -d "${secs}s" --warmup 3s --seed $RANDOM)
    echo "node -Xmx$heap PUT c=$c: wrk $w req/s; dht bench at $(target "$c") req/s: $b"
  done
  kill "$pid"; wait "$pid" || true
  # GET reads a database holding just its KEYS keys, once the fill's flushes and compactions are
  # done. (Until 25 Nov it ran on the PUT phase's node, where every PUT run had rewritten keys from
  # k0000000000 up, so each key read had versions in several tables: see benchmarks.md.)
  start_node "$heap" get
  bench fill --url "$url" --count "$keys" --value-size 100 -c 64 | tail -n 1
  wait_quiet "$url"
  for c in 1 64; do
    t=$(threads "$c")
    w=$(KEYS="$keys" wrk_rate -t"$t" -c"$c" -d"${secs}s" -s "$root/bench/wrk2/get.lua" "$url")
    b=$(bench_line --url "$url" -w get --keys "$keys" -c "$c" -t "$t" -R "$(target "$c")" -d "${secs}s" --warmup 3s)
    echo "node -Xmx$heap GET c=$c: wrk $w req/s; dht bench at $(target "$c") req/s: $b"
  done
  kill "$pid"; wait "$pid" || true
done
