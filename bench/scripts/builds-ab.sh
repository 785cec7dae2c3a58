#!/usr/bin/env bash
# Two builds side by side on one node each, in turn: for ROUNDS rounds, for each jar of JARS, a
# fresh node (default heap) is filled with KEYS keys, warmed by 10 s of closed-loop PUT, then PUT
# and GET run at RATE over 64 connections for SECS each. One line per run: rate and tail. Alternating
# the builds within each round spreads the machine's noise over both.
# Usage: JARS="old/dht.jar new/dht.jar" bench/scripts/builds-ab.sh
#        env ROUNDS (3), RATE (40000), SECS (20), KEYS (200000), PORT (19631)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
rounds=${ROUNDS:-3} rate=${RATE:-40000} secs=${SECS:-20} keys=${KEYS:-200000} port=${PORT:-19631}
out_dir="$(mktemp -d /tmp/dht-builds-ab.XXXXXX)"
B() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
url=http://127.0.0.1:$port
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$out_dir"/*/data' EXIT
machine_line
for r in $(seq 1 "$rounds"); do
  for spec in $JARS; do
    build_spec "$spec"; dir=$out_dir/r$r-$(echo "$label" | tr -c 'A-Za-z0-9.=-' _); mkdir -p "$dir"
    # shellcheck disable=SC2086
    "${java[@]}" $opts -jar "$jar" serve --port "$port" --data "$dir/data" >"$dir/node.log" 2>&1 &
    pid=$!
    wait_ready "$url"
    B fill --url "$url" --count "$keys" -c 64 >/dev/null
    fresh_keys; B --url "$url" -w put --distribution sequential --keys 2000000000 --start "$start_at" \
      -c 64 -t 2 -R 0 -d 10s --warmup 0s >/dev/null
    wait_quiet "$url" >/dev/null
    fresh_keys
    echo "round $r $label PUT at $rate: $(B --url "$url" -w put --distribution sequential --keys 2000000000 \
      --start "$start_at" -c 64 -t 2 -R "$rate" -d "${secs}s" --warmup 5s | percentiles)"
    wait_quiet "$url" >/dev/null
    echo "round $r $label GET at $rate: $(B --url "$url" -w get --keys "$keys" -c 64 -t 2 -R "$rate" \
      -d "${secs}s" --warmup 5s | percentiles)"
    kill "$pid"; wait "$pid" || true; pid=""
    rm -rf "$dir/data"
  done
done
echo "logs: $out_dir"
