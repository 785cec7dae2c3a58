#!/usr/bin/env bash
# Builds side by side over one pipelined connection: for each jar of JARS in turn, ROUNDS times,
# a fresh node (-Xmx128m) is warmed (20 s of closed-loop PUT over 64 connections), then PUT of new
# keys over one connection with --pipeline DEPTH: 10 s closed loop, then 30 s at RATE, with the
# worst latency during each compaction and flush (stalls-by-event.py). Each run writes keys of its
# own (fresh_keys). Logs and timelines stay in a new directory under /tmp; node data is removed.
# A JARS entry may carry JVM options for its node: jar@-Dx=y,-Dz=w (common.sh's build_spec).
# Usage: JARS="a/dht.jar b/dht.jar" bench/scripts/pipelined-put-ab.sh
#        env ROUNDS (3), DEPTH (16), RATE (15000), PORT (19621)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
rounds=${ROUNDS:-3} depth=${DEPTH:-16} rate=${RATE:-15000} port=${PORT:-19621}
out_dir="$(mktemp -d /tmp/dht-pipelined-put-ab.XXXXXX)"
B() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
url=http://127.0.0.1:$port
load=(--url "$url" -w put --distribution sequential --keys 2000000000)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$out_dir"/*/data' EXIT
machine_line
for r in $(seq 1 "$rounds"); do
  for spec in $JARS; do
    build_spec "$spec"; name=$label; dir=$out_dir/r$r-$(echo "$label" | tr -c 'A-Za-z0-9.=-' _); mkdir -p "$dir"
    # shellcheck disable=SC2086
    "${java[@]}" -Xmx128m $opts -jar "$jar" serve --port "$port" --data "$dir/data" >"$dir/node.log" 2>&1 &
    pid=$!
    wait_ready "$url"
    fresh_keys; B "${load[@]}" --start "$start_at" -c 64 -t 2 -R 0 -d 20s --warmup 0s >/dev/null
    fresh_keys
    echo "round $r $name closed loop depth $depth: $(B "${load[@]}" --start "$start_at" -c 1 -t 1 --pipeline "$depth" -R 0 -d 10s --warmup 3s | percentiles)"
    fresh_keys
    line=$(B "${load[@]}" --start "$start_at" -c 1 -t 1 --pipeline "$depth" -R "$rate" -d 30s --warmup 5s --out "$dir/out" | percentiles)
    echo "round $r $name at $rate depth $depth: $line; $(python3 "$root/bench/scripts/stalls-by-event.py" "$dir/out/timeline.txt" "$dir/node.log")"
    kill "$pid"; wait "$pid" || true; pid=""
    rm -rf "$dir/data"
  done
done
echo "logs and timelines: $out_dir"
