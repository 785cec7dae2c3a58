#!/usr/bin/env bash
# Builds side by side at constant rates, measured by wrk2: for each entry of JARS in turn (jar, or
# jar@-Dx=y,-Xms128m: build_spec in common.sh), one node (HEAP, default -Xmx128m, with -Xlog:gc),
# a 20 s closed-loop warm-up, then a SECS (default 30) wrk2 step at each of RATES, 64 connections
# (CONNS). WORK=put writes unique keys; WORK=get first fills KEYS (default 1000000) keys of 100
# bytes. Repeat a build in JARS to alternate rounds. Each line: build, rate asked, requests served
# per second (the nodes' own count, /metrics), p50, p99, p99.9, the nodes' CPU per request served
# (every thread, user and system); then the node's young-collection pauses over its whole run
# (count, total ms).
# NODES=3: a 3-node cluster instead (start_nodes in common.sh: -Xmx256m each unless HEAP says
# otherwise, a share of the cores each), all traffic through its first node; pauses summed over its nodes.
# Usage: JARS="a/dht.jar b/dht.jar a/dht.jar b/dht.jar" RATES="20000 25000 30000" bench/scripts/rates-ab.sh
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
wrk2="${WRK2:-/opt/wrk2/wrk}"
[ -x "$wrk2" ] || { echo "needs wrk2 at $wrk2 (WRK2=...)" >&2; exit 1; }
work="${WORK:-put}"
conns="${CONNS:-64}"
threads=$([ "$conns" = 1 ] && echo 1 || echo 2)
port="${PORT:-18090}"
url="http://127.0.0.1:$port"
dir="$(mktemp -d /tmp/dht-rates-ab.XXXXXX)"
machine_line
echo "date: $(date -u +%FT%TZ), $work, $conns connections, steps ${SECS:-30}s after a 20 s closed-loop warm-up"
n=0
for spec in ${JARS:?JARS=jar[@opts] ...}; do
  build_spec "$spec"
  ports=("$port")
  if [ "${NODES:-1}" = 3 ]; then
    ports=("$port" $((port + 1)) $((port + 2)))
    start_nodes "$jar" "${HEAP:-} $opts -Xlog:gc:file=$dir/gc-$n-%p.log" "$port" $((port + 1)) $((port + 2))
  else
    # shellcheck disable=SC2086
    "${java[@]}" ${HEAP:--Xmx128m} $opts -Xlog:gc:file="$dir/gc-$n-%p.log" -jar "$jar" serve --port "$port" \
      --data "$dir/data" >"$dir/node-$n.log" 2>&1 &
    pids=($!)
    wait_ready "$url"
  fi
  if [ "$work" = get ]; then
    "${java[@]}" -cp "$jar" dht.bench.BenchMain fill --url "$url" --count "${KEYS:-1000000}" --value-size 100 -c 64 >/dev/null 2>&1
    wait_quiet "$url" >/dev/null
    export KEYS="${KEYS:-1000000}"
  else
    export KEYS=2000000000 DISTRIBUTION=sequential START=100000000
  fi
  "$wrk2" -t"$threads" -c"$conns" -d20s -R 1000000 -s "$root/bench/wrk2/$work.lua" "$url" >/dev/null
  for rate in ${RATES:-30000}; do
    [ "$work" = put ] && export START=$((START + 100000000))
    t0=$(ticks "${pids[@]}"); s0=$(served "$work" "${ports[@]}")
    out=$("$wrk2" -t"$threads" -c"$conns" -d"${SECS:-30}s" -R "$rate" --latency -s "$root/bench/wrk2/$work.lua" "$url")
    t1=$(ticks "${pids[@]}"); s1=$(served "$work" "${ports[@]}")
    echo "$out" | awk -v b="$label" -v r="$rate" -v ticks=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v secs="${SECS:-30}" \
        -v n=$((s1 - s0)) '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        /^ +50\.000%/ {p50=ms($2)} /^ +99\.000%/ {p99=ms($2)} /^ +99\.900%/ {p999=ms($2)}
        END {printf "%-28s rate %6d served %8.0f  p50 %7.2f  p99 %8.2f  p99.9 %8.2f ms  node CPU %5.1f us/req\n",
             b, r, n / secs, p50, p99, p999, (n > 0 ? ticks / hz * 1e6 / n : 0)}'
  done
  echo "  young pauses: $(cat "$dir"/gc-"$n"-*.log | grep -c Pause), total $(cat "$dir"/gc-"$n"-*.log | grep Pause | awk '{s += $NF + 0} END {printf "%.0f", s}') ms"
  kill "${pids[@]}"; wait "${pids[@]}" || true
  rm -rf "$dir"/data*
  unset DISTRIBUTION START
  n=$((n + 1))
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
