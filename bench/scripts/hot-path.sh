#!/usr/bin/env bash
# Per-request waste on the hot path, builds side by side (issue #6: fix what a flame graph shows as
# waste, and show before and after). One node (-Xmx512m, as in `bin/dht bench report`), 64
# connections, PUT of unique keys and GET on KEYS filled keys; for each build, alternating:
#   - 30 s of untimed closed-loop warm-up, then a closed-loop run (maximum throughput);
#   - 30 s at a constant RATE: its p99;
#   for both, the heap bytes the node allocated per request (dht bench's "Node allocation" line);
#   - 30 s more at that rate with --profile alloc,lock,cpu: the flame graphs (saved under OUT; the
#     same rate for every build, so sample counts compare directly). Profiled GET runs showed p99 of
#     0.2-1.5 s with either build (profiling perturbs the node), so p99 comes from the run before.
#   JARS="before/dht.jar after/dht.jar"   the builds (default: this checkout's jar); an entry
#       jar@-Dx=y,-Dz=w runs that build with those JVM options (a variant of the same build)
#   NODE_OPTS="..."  extra JVM options for the node, every build
# Usage: bench/scripts/hot-path.sh [ROUNDS] [SECONDS] [KEYS]   (defaults 2, 15 s, 200000)
#   RATE_PUT (default 10000), RATE_GET (default 20000), OUT (default /tmp/dht-hot-path)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
rounds="${1:-2}"
secs="${2:-15}"
keys="${3:-200000}"
jars=(${JARS:-$root/cli/target/dht.jar})
out="${OUT:-/tmp/dht-hot-path}"
[ -f "${jars[0]%%@*}" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
dir="$(mktemp -d /tmp/dht-hot-path.XXXXXX)"
mkdir -p "$out"
port=19401
url="http://127.0.0.1:$port"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT

machine_line
echo "date: $(date -u +%FT%TZ), ${secs}s closed-loop runs after 30 s of warm-up, $keys keys for GET, 64 connections"
for round in $(seq 1 "$rounds"); do
  for spec in "${jars[@]}"; do
    build_spec "$spec"
    name="$label"
    for wl in put get; do
      rm -rf "$dir/data"
      "${java[@]}" -Xmx512m ${NODE_OPTS:-} $opts -jar "$jar" serve --port "$port" \
        --data "$dir/data" >"$dir/node.log" 2>&1 &
      pid=$!
      wait_ready "$url" 150
      if [ "$wl" = put ]; then
        load=(-w put --distribution sequential --keys 2000000000 --value-size 100)
        rate="${RATE_PUT:-10000}"
      else
        "${java[@]}" -cp "$jar" dht.bench.BenchMain fill --url "$url" --count "$keys" --value-size 100 -c 64 >/dev/null 2>&1
        load=(-w get --keys "$keys")
        rate="${RATE_GET:-20000}"
      fi
      bench=("${java[@]}" -cp "$jar" dht.bench.BenchMain --url "$url" "${load[@]}" -c 64 -t 2)
      "${bench[@]}" -R 0 -d 30s --warmup 0s --seed $RANDOM >/dev/null 2>&1
      closed=$("${bench[@]}" -R 0 -d "${secs}s" --warmup 0s --seed $RANDOM 2>/dev/null \
        | awk '/^Requests\/sec/ {rps=$2} /^Node allocation:/ {alloc=$3} END {print rps " req/s, " alloc " bytes/request"}')
      fixed=$("${bench[@]}" -R "$rate" -d 30s --warmup 5s --seed $RANDOM 2>/dev/null \
        | awk '/^ +99\.000%/ {p99=$2} /^Node allocation:/ {alloc=$3} END {print "p99 " p99 ", " alloc " bytes/request"}')
      prof="$out/round$round-$name-$wl"
      rm -rf "$prof"
      "${bench[@]}" -R "$rate" -d 30s --warmup 5s --seed $RANDOM --profile alloc,lock,cpu --out "$prof" >/dev/null 2>&1
      echo "round $round $name $wl: closed loop $closed; at $rate req/s $fixed (flame graphs: $prof)"
      kill "$pid"; wait "$pid" 2>/dev/null || true
      pid=""
    done
  done
done
