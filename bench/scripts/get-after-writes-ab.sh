#!/usr/bin/env bash
# GET over one connection after a write load, two builds in turn (issue #43). For ROUNDS rounds,
# for each jar of JARS: a fresh node -Xmx128m -Xms128m, 1,000,000 keys filled, 30 s of closed-loop
# PUT and 30 s of PUT at 50,000/s over 64 connections (new keys: more tables), then GET over one
# connection at 5,000/s for 90 s (long enough for a kernel's proactive reclaim, DAMON here, to page
# out the blocks nobody reads), then GET over one connection at RATE for 30 s and in a closed loop
# for 20 s. One line per step: rate and tail; and the CPU time of the node's storage threads in
# the last two steps (reads the event loop handed over).
# Usage: JARS="old/dht.jar new/dht.jar" bench/scripts/get-after-writes-ab.sh
#        env ROUNDS (2), RATE (12000), PORT (19641)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
rounds=${ROUNDS:-2} rate=${RATE:-12000} port=${PORT:-19641} keys=1000000
out_dir="$(mktemp -d /tmp/dht-get-after-writes.XXXXXX)"
B() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
url=http://127.0.0.1:$port
pid=""
# The CPU ticks the node's storage threads have used so far (their names start with "storage").
storage_ticks() {
  local d tids=()
  for d in /proc/"$pid"/task/*; do [[ "$(cat "$d/comm" 2>/dev/null)" == storage* ]] && tids+=("${d##*/}"); done
  ticks "${tids[@]}"
}
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$out_dir"/*/data' EXIT
machine_line
for r in $(seq 1 "$rounds"); do
  for spec in $JARS; do
    build_spec "$spec"; dir=$out_dir/r$r-$(echo "$label" | tr -c 'A-Za-z0-9.=-' _); mkdir -p "$dir"
    # shellcheck disable=SC2086
    "${java[@]}" -Xmx128m -Xms128m $opts -jar "$jar" serve --port "$port" --data "$dir/data" >"$dir/node.log" 2>&1 &
    pid=$!
    wait_ready "$url"
    B fill --url "$url" --count "$keys" -c 64 >/dev/null
    fresh_keys; B --url "$url" -w put --distribution sequential --keys 2000000000 --start "$start_at" \
      -c 64 -t 2 -R 0 -d 30s --warmup 0s >/dev/null
    fresh_keys; echo "round $r $label PUT c64 at 50000: $(B --url "$url" -w put --distribution sequential \
      --keys 2000000000 --start "$start_at" -c 64 -t 2 -R 50000 -d 30s --warmup 0s | percentiles)"
    echo "round $r $label $(wait_quiet "$url")"
    echo "round $r $label GET c1 at 5000, 90 s: $(B --url "$url" -w get --keys "$keys" -c 1 -t 1 -R 5000 \
      -d 90s --warmup 0s | percentiles)"
    t0=$(storage_ticks)
    echo "round $r $label GET c1 at $rate: $(B --url "$url" -w get --keys "$keys" -c 1 -t 1 -R "$rate" \
      -d 30s --warmup 3s | percentiles)"
    echo "round $r $label GET c1 closed loop: $(B --url "$url" -w get --keys "$keys" -c 1 -t 1 -R 0 \
      -d 20s --warmup 3s | percentiles)"
    echo "round $r $label storage threads' CPU in the last two steps: $(( ($(storage_ticks) - t0) * 10 )) ms"
    kill "$pid"; wait "$pid" || true; pid=""
    rm -rf "$dir/data"
  done
done
echo "logs: $out_dir"
