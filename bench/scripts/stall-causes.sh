#!/usr/bin/env bash
# What lies under the slowest moments of one pipelined connection: a fresh node (-Xmx128m) is warmed
# (20 s of closed-loop PUT over 64 connections), then PUT of new keys over one connection with
# --pipeline DEPTH at RATE for 30 s (after 5 s of warm-up), while
#   - the node and the generator log their GC pauses and safepoints (-Xlog, UTC),
#   - a probe process that does nothing but sleep 1 ms in a loop logs each wake-up more than 2 ms
#     late (stall-probe.py): a moment when both CPUs were taken (by anything, the node and the
#     generator included) or the VM was not running,
# and stall-causes.py prints the slowest 100 ms slots of the timeline, each with what overlapped it
# (flush, compaction, a GC pause or safepoint of either process, late wake-ups of the probe).
# SERVE_ARGS: options for `serve` (e.g. "--memtable-size 1073741824": no flush in the run).
# GEN_OPTS: JVM options for the generator (e.g. -Xmn1g, a young generation that never fills in the
# run); NODE_OPTS for the node. Files stay in a new directory under /tmp; node data is removed.
# Usage: bench/scripts/stall-causes.sh [JAR]   env ROUNDS (1), RATE (15000), DEPTH (16), PORT (19631)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
jar="${1:-$root/cli/target/dht.jar}"
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
rounds=${ROUNDS:-1} rate=${RATE:-15000} depth=${DEPTH:-16} port=${PORT:-19631}
out_dir="$(mktemp -d /tmp/dht-stall-causes.XXXXXX)"
url=http://127.0.0.1:$port
load=(--url "$url" -w put --distribution sequential --keys 2000000000)
log_opts() { echo "-Xlog:gc=info,safepoint=info:file=$1:utctime"; }
pid="" probe=""
trap 'set +e; [ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$probe" ] && kill "$probe" 2>/dev/null; wait 2>/dev/null; rm -rf "$out_dir"/*/data' EXIT
machine_line
echo "date: $(date -u +%FT%TZ), PUT at $rate/s over 1 connection, --pipeline $depth${GEN_OPTS:+, generator $GEN_OPTS}${NODE_OPTS:+, node $NODE_OPTS}${SERVE_ARGS:+, serve $SERVE_ARGS}"
for r in $(seq 1 "$rounds"); do
  dir=$out_dir/r$r; mkdir -p "$dir"
  # shellcheck disable=SC2086
  "${java[@]}" -Xmx128m ${NODE_OPTS:-} "$(log_opts "$dir/node-gc.log")" -jar "$jar" serve --port "$port" \
    --data "$dir/data" ${SERVE_ARGS:-} >"$dir/node.log" 2>&1 &
  pid=$!
  wait_ready "$url"
  fresh_keys
  "${java[@]}" -cp "$jar" dht.bench.BenchMain "${load[@]}" --start "$start_at" -c 64 -t 2 -R 0 -d 20s --warmup 0s >/dev/null 2>"$dir/warm-up.err" \
    || { echo "the warm-up failed: $dir/warm-up.err" >&2; exit 1; }
  python3 "$root/bench/scripts/stall-probe.py" "$dir/probe.txt" & probe=$!
  fresh_keys
  # shellcheck disable=SC2086
  "${java[@]}" ${GEN_OPTS:-} "$(log_opts "$dir/gen-gc.log")" -cp "$jar" dht.bench.BenchMain "${load[@]}" --start "$start_at" \
    -c 1 -t 1 --pipeline "$depth" -R "$rate" -d 30s --warmup 5s --out "$dir/out" >"$dir/bench.txt" 2>"$dir/bench.err" \
    || { echo "the measured run failed: $dir/bench.err" >&2; exit 1; }
  kill "$probe" 2>/dev/null || true; wait "$probe" 2>/dev/null || true; probe=""
  kill "$pid" 2>/dev/null || echo "the node had stopped before the end of round $r: $dir/node.log" >&2
  wait "$pid" || true; pid=""
  rm -rf "$dir/data"
  echo "round $r: $(percentiles <"$dir/bench.txt")"
  python3 "$root/bench/scripts/stall-causes.py" "$dir"
done
echo "files: $out_dir"
