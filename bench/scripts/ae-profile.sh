#!/usr/bin/env bash
# Where anti-entropy's cost goes (issue #38): CPU flame graphs of three local nodes under
# closed-loop PUT, anti-entropy on (every AE_INTERVAL ms, default 10000) and then off, each on
# fresh data (KEYS keys, default 200000, 100-byte values, 30 s of closed-loop PUT first), 20 s
# profiled with `bench --profile cpu`. Prints each mode's rates and the first node's exchange
# counters; the graphs land in DIR/prof-on and DIR/prof-off (`dht bench flame` reads them).
# Every node runs -Xmx256m, --io-threads 1. Usage: bench/scripts/ae-profile.sh  (JAR, DIR)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
jar="${JAR:-$root/cli/target/dht.jar}"
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
dir="${DIR:-$(mktemp -d /tmp/dht-ae-profile.XXXXXX)}"
mkdir -p "$dir"
keys="${KEYS:-200000}"
ports=($(free_port) $(free_port) $(free_port))
urls="$(node_urls "${ports[@]}")"
pids=()
trap 'kill_pids; rm -rf "$dir"/data-*' EXIT
bench() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
machine_line
echo "build: $jar; graphs under $dir"
for mode in on off; do
  interval="${AE_INTERVAL:-10000}"; [ "$mode" = off ] && interval=0
  pids=()
  for p in "${ports[@]}"; do
    "${java[@]}" -Xmx256m -jar "$jar" serve --port "$p" --data "$dir/data-$mode-$p" --cluster "$urls" \
      --self "http://127.0.0.1:$p" --io-threads 1 --anti-entropy-interval "$interval" >"$dir/node-$mode-$p.log" 2>&1 &
    pids+=($!)
  done
  for p in "${ports[@]}"; do wait_ready "http://127.0.0.1:$p"; done
  bench fill --url "$urls" --count "$keys" --value-size 100 -c 64 | tail -n 1
  echo "$mode warm-up: $(bench --url "$urls" -w put --keys "$keys" -c 64 -t 2 -R 0 -d 30s --warmup 0s | grep Requests/sec)"
  echo "$mode profiled: $(bench --url "$urls" -w put --keys "$keys" -c 64 -t 2 -R 0 -d 20s --warmup 2s --profile cpu \
    --out "$dir/prof-$mode" | grep Requests/sec)"
  curl -fs "http://127.0.0.1:${ports[0]}/v0/status" | jq -c '.antiEntropy'
  kill_pids
done
