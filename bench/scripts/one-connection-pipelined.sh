#!/usr/bin/env bash
# Issue #3's one-connection target (15,000 req/s, p99 < 10 ms) with and without HTTP/1.1
# pipelining, side by side with nginx in one run. A client that waits for each answer cannot send
# faster than one round trip each, which on these VMs is about what 15,000 req/s needs; with
# pipelining (`dht bench --pipeline D`) requests go out on schedule whatever is still in flight.
# For nginx (static 200), then one node (-Xmx128m) PUTting unique keys, then one node GETting from a
# database of KEYS keys: a closed loop (as fast as answers come) and a constant RATE, each with
# depth 1 and depth D, ROUNDS times.
# Needs nginx-light (apt-get install -y nginx-light).
# Usage: bench/scripts/one-connection-pipelined.sh [SECONDS] [KEYS] [DEPTH]   (10 s, 1000000, 16)
#        env RATE (15000), ROUNDS (2), HEAP (128m), JAR (default: cli/target/dht.jar)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
secs="${1:-10}"
keys="${2:-1000000}"
depth="${3:-16}"
rate="${RATE:-15000}"
rounds="${ROUNDS:-2}"
heap="${HEAP:-128m}"
nginx_port=18080
node_port=18090
dir="$(mktemp -d /tmp/dht-one-conn-pipelined.XXXXXX)"
. "$root/bench/scripts/nginx.sh"
start_nginx "$nginx_port" "$dir"
jar="${JAR:-$root/cli/target/dht.jar}"
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
bench() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
# runs NAME ARGS...: the four runs (closed loop and RATE, depth 1 and D) against one target. With
# FRESH=1, each run is given a key range of its own (a sequential PUT run writes new keys).
runs() {
  local name="$1"; shift
  local s=() what
  for r in $(seq 1 "$rounds"); do
    for p in 1 "$depth"; do
      for R in 0 "$rate"; do
        if [ "${FRESH:-0}" = 1 ]; then fresh_keys; s=(--start "$start_at"); fi
        if [ "$R" = 0 ]; then what="closed loop"; else what="at $R req/s"; fi
        echo "$name round $r depth $p $what: $(bench "$@" "${s[@]}" -c 1 -t 1 --pipeline "$p" -R "$R" -d "${secs}s" --warmup 3s --seed $RANDOM | percentiles)"
      done
    done
  done
}
start_node() { # workload: a node on a fresh data directory
  "${java[@]}" "-Xmx$heap" -jar "$jar" serve --port "$node_port" --data "$dir/node-$1" >"$dir/node-$1.log" 2>&1 &
  pid=$!
  wait_ready "http://127.0.0.1:$node_port" || { kill "$pid"; exit 1; }
}
url="http://127.0.0.1:$node_port"

machine_line
echo "date: $(date -u +%FT%TZ), ${secs}s per run after 3 s of warm-up, depth $depth, rate $rate, $keys keys for GET, node -Xmx$heap"
runs nginx --url "http://127.0.0.1:$nginx_port" -w get
start_node put
FRESH=1 runs "node PUT" --url "$url" -w put --distribution sequential --keys 2000000000
kill "$pid"; wait "$pid" || true
start_node get
bench fill --url "$url" --count "$keys" --value-size 100 -c 64 | tail -n 1
wait_quiet "$url"
runs "node GET" --url "$url" -w get --keys "$keys"
kill "$pid"; wait "$pid" || true
rm -rf "$dir"/node-*  # nginx.sh's exit trap still reads $dir/nginx.pid
