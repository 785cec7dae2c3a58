#!/usr/bin/env bash
# Issue #38's "How fast" figures for self-healing, on three local nodes of one build
# (docs/benchmarks.md, "Self-healing costs"). Phases, chosen with PHASES (default all four):
#   cost       anti-entropy's cost at steady state: closed-loop PUT (overwrites within the filled
#              keys) and GET, 64 connections over the three nodes, anti-entropy on (every
#              AE_INTERVAL ms, default 10000) and off (interval 0), the same filled data restarted
#              in turn, on/off/on/off for ROUNDS rounds (default 2); prints each run's rate, the
#              nodes' CPU per request (their /proc CPU time over the requests their /metrics
#              counted, warm-up included) and the anti-entropy bytes moved during it.
#   divergent  bytes exchanged when 1 key in DIV_KEYS (default 1,000,000) differs: fills DIV_KEYS
#              keys into the first node alone (no cluster: faster than through three on a
#              shared machine), copies its stopped data directory to the other two (every key's
#              replicas are all three nodes), starts the three with anti-entropy on (every
#              DIV_INTERVAL ms, default 30000), takes one round's counters with nothing differing, writes one key with
#              from=2 (one replica misses it), and prints the counters of the rounds after.
#   refill     on the divergent phase's nodes: the third node stopped, its data directory deleted,
#              started again; the time until its local scan holds as many keys as the first node's.
#   hints      p99 of PUTs at a constant rate (HINT_RATE req/s, default 2000, 100-byte values,
#              -d HINT_SECS, default 10) while a HINT_MB MiB (default 100) hint backlog is being
#              delivered to the node that missed it (paced, the default --hint-rate), against the
#              same run with no backlog; none/backlog alternating for HINT_ROUNDS rounds (default 3).
# KEYS (default 200000) is the cost phase's fill; AE_WARMUP (default 15) its seconds of closed-loop PUT
# after each start, before the measured runs; those then wait for every node's first tree build
# (when on) and for flushes and compactions to end. Every node runs -Xmx256m, --sync periodic.
# Usage: bench/scripts/healing-costs.sh        (JAR overrides cli/target/dht.jar; DIR the data root)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
phases=" ${PHASES:-cost divergent refill hints} "
keys="${KEYS:-200000}"
rounds="${ROUNDS:-2}"
secs="${SECS:-20}"
ae_interval="${AE_INTERVAL:-10000}"
div_keys="${DIV_KEYS:-1000000}"
div_interval="${DIV_INTERVAL:-30000}"
hint_rate="${HINT_RATE:-2000}"
hint_secs="${HINT_SECS:-10}"
hint_mb="${HINT_MB:-100}"
hint_rounds="${HINT_ROUNDS:-3}"
jar="${JAR:-$root/cli/target/dht.jar}"
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
dir="${DIR:-$(mktemp -d /tmp/dht-healing.XXXXXX)}"
mkdir -p "$dir"
pids=()
cleanup() { kill_pids; }
trap 'cleanup; rm -rf "$dir"/data-*' EXIT
ports=($(free_port) $(free_port) $(free_port))
urls="$(node_urls "${ports[@]}")"
url() { echo "http://127.0.0.1:${ports[$1]}"; }

# A run with an error answer exits non-zero: its summary says so, and the script goes on.
bench() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null || true; }
closed_line() {
  bench "$@" | awk '/^ +50\.000%/ {p50=$2} /^ +99\.000%/ {p99=$2} /^Requests\/sec/ {rps=$2} END {printf "%s req/s (p50 %s, p99 %s)", rps, p50, p99}'
}
# Stops every node (SIGTERM, as an operator would), keeping their data.
stop_nodes() { cleanup; pids=(); }
# start_one I ARGS...: starts node I alone (the others keep running), its pid in pids[I].
start_one() {
  local i="$1"; shift
  local p="${ports[$i]}"
  "${java[@]}" -Xmx256m -jar "$jar" serve --port "$p" --data "$dir/data-$p" --cluster "$urls" \
    --self "http://127.0.0.1:$p" --io-threads 1 "$@" >>"$dir/node-$p.log" 2>&1 &
  pids[$i]=$!
  wait_ready "http://127.0.0.1:$p"
}
# Sum of one anti-entropy counter over every node and peer.
ae_sum() {
  local field="$1" total=0 i v
  for i in 0 1 2; do
    v="$(curl -fs "$(url $i)/v0/status" | jq "[.antiEntropy[]?.$field] | add // 0")"
    total=$((total + v))
  done
  echo "$total"
}
# Every node's anti-entropy counters, one line per node and peer.
ae_table() {
  local i
  for i in 0 1 2; do
    curl -fs "$(url $i)/v0/status" | jq -r --arg n "node$i" '.antiEntropy | to_entries[] |
      "\($n) with \(.key): exchanges \(.value.exchanges), differingLeaves \(.value.differingLeaves), keysSent \(.value.keysSent), keysReceived \(.value.keysReceived), bytesSent \(.value.bytesSent), bytesReceived \(.value.bytesReceived)"'
  done
}
# Waits until every node finished at least 2 more exchanges (a whole round: one per peer).
await_round() {
  local before=() i n done t0=$SECONDS
  for i in 0 1 2; do before[$i]="$(curl -fs "$(url $i)/v0/status" | jq '[.antiEntropy[].exchanges] | add // 0')"; done
  while [ $((SECONDS - t0)) -lt 900 ]; do
    sleep 1
    done=1
    for i in 0 1 2; do
      n="$(curl -fs "$(url $i)/v0/status" | jq '[.antiEntropy[].exchanges] | add // 0')"
      [ "$n" -ge $((before[$i] + 2)) ] || done=0
    done
    [ "$done" = 1 ] && return 0
  done
  echo "no whole round within 900 s" >&2
  return 1
}
# How many tree builds all three nodes' logs have reported, and a wait for three more than $1.
trees_built() { cat "$dir"/node-*.log 2>/dev/null | grep -c "anti-entropy trees built" || true; }
await_builds() {
  local t0=$SECONDS
  while [ "$(trees_built)" -lt $(($1 + 3)) ]; do
    [ $((SECONDS - t0)) -lt 300 ] || { echo "trees not built within 300 s" >&2; return 1; }
    sleep 1
  done
  echo "trees built $((SECONDS - t0)) s after the warm-up" >&2
}
# Keys node I holds itself (a local scan: one newline per entry, as values have none).
local_keys() { curl -fs "$(url "$1")/v0/entities?start=%00&scope=local" | tr -cd '\n' | wc -c; }

echo "data and logs under $dir"
machine_line
echo "build: $jar ($(cd "$root" && git rev-parse --short HEAD))"

if [[ "$phases" == *" cost "* ]]; then
  rm -rf "$dir"/data-*
  for i in 0 1 2; do start_one $i --anti-entropy-interval 0; done
  bench fill --url "$urls" --count "$keys" --value-size 100 -c 64 >/dev/null
  wait_quiet ${urls//,/ }
  stop_nodes
  for round in $(seq 1 "$rounds"); do
    for mode in on off; do
      interval=0; [ "$mode" = on ] && interval="$ae_interval"
      built0="$(trees_built)"
      for i in 0 1 2; do start_one $i --anti-entropy-interval "$interval"; done
      bench --url "$urls" -w put --keys "$keys" -c 64 -t 2 -R 0 -d "${AE_WARMUP:-15}s" --warmup 0s >/dev/null
      # Steady state: with anti-entropy on, every node's first build done; flushes and compactions settled.
      if [ "$mode" = on ]; then await_builds "$built0"; fi
      wait_quiet ${urls//,/ } >/dev/null
      for w in put get; do
        b0="$(ae_sum bytesSent)"; r0="$(ae_sum bytesReceived)"; x0="$(ae_sum exchanges)"
        c0="$(ticks "${pids[@]}")"; s0="$(served "$w" "${ports[@]}")"
        line="$(closed_line --url "$urls" -w "$w" --keys "$keys" -c 64 -t 2 -R 0 -d "${secs}s" --warmup 2s)"
        c1="$(ticks "${pids[@]}")"; s1="$(served "$w" "${ports[@]}")"
        echo "round $round anti-entropy $mode (interval $interval ms) $w closed: $line;" \
          "nodes' CPU per request $(awk -v c=$((c1 - c0)) -v n=$((s1 - s0)) -v t="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f us over %d requests", n ? 1e6 * c / t / n : 0, n}');" \
          "exchanges $(( $(ae_sum exchanges) - x0 )), bytes sent $(( $(ae_sum bytesSent) - b0 )), received $(( $(ae_sum bytesReceived) - r0 ))"
      done
      stop_nodes
    done
  done
  rm -rf "$dir"/data-*
fi

if [[ "$phases" == *" divergent "* || "$phases" == *" refill "* ]]; then
  rm -rf "$dir"/data-*
  p="${ports[0]}"
  "${java[@]}" -Xmx256m -jar "$jar" serve --port "$p" --data "$dir/data-$p" >>"$dir/node-$p.log" 2>&1 &
  pids[0]=$!
  wait_ready "$(url 0)"
  t0=$SECONDS
  bench fill --url "$(url 0)" --count "$div_keys" --value-size 100 -c 64
  echo "filled $div_keys keys into node 0 alone in $((SECONDS - t0)) s"
  wait_quiet "$(url 0)"
  stop_nodes
  cp -a "$dir/data-$p" "$dir/data-${ports[1]}"
  cp -a "$dir/data-$p" "$dir/data-${ports[2]}"
  du -sh "$dir/data-$p"
  for i in 0 1 2; do start_one $i --anti-entropy-interval "$div_interval"; done
fi
if [[ "$phases" == *" divergent "* ]]; then
  await_round; await_round
  echo "--- counters after two whole rounds, nothing differing (totals since start):"; ae_table
  await_round
  echo "--- after one more round:"; ae_table
  curl -fs -o /dev/null -X PUT --data-binary "$(printf 'd%.0s' $(seq 1 100))" "$(url 0)/v0/entity?id=divergent-key&ack=2&from=2"
  echo "--- wrote divergent-key with from=2 (one replica misses it)"
  await_round
  echo "--- after the next round:"; ae_table
  await_round
  echo "--- and the one after:"; ae_table
fi

if [[ "$phases" == *" refill "* ]]; then
  want="$(local_keys 0)"
  for refill in $(seq 1 "${REFILLS:-1}"); do
    kill "${pids[2]}"; wait "${pids[2]}" 2>/dev/null || true
    rm -rf "$dir/data-${ports[2]}"
    t0="$(date +%s.%N)"
    start_one 2 --anti-entropy-interval "$div_interval"
    echo "refill $refill: node 2 wiped; ready $(echo "$(date +%s.%N) - $t0" | bc) s after its start; the first node holds $want keys"
    # a local scan of node 2 takes a few seconds: the time is good to that
    while true; do
      got="$(local_keys 2)"
      now="$(date +%s.%N)"
      echo "refill $refill: $(echo "$now - $t0" | bc) s after start: $got keys"
      [ "$got" -ge "$want" ] && break
      [ "$(echo "$now - $t0 > 1200" | bc)" = 1 ] && { echo "refill: not complete after 1200 s"; break; }
      sleep 2
    done
    curl -fs "$(url 2)/v0/status" | jq -c '.antiEntropy'
  done
fi
[[ "$phases" == *" divergent "* || "$phases" == *" refill "* ]] && { stop_nodes; rm -rf "$dir"/data-*; }

if [[ "$phases" == *" hints "* ]]; then
  hint_count=$((hint_mb * 256)) # 4 KiB values
  fresh_keys
  for round in $(seq 1 "$hint_rounds"); do
    for mode in none backlog; do
      rm -rf "$dir"/data-*
      for i in 0 1 2; do start_one $i --anti-entropy-interval 0; done
      bench --url "$urls" -w put -c 16 -t 2 -R 0 -d 10s --warmup 0s >/dev/null # JIT warm-up
      kill "${pids[2]}"; wait "${pids[2]}" 2>/dev/null || true
      if [ "$mode" = backlog ]; then
        fresh_keys
        bench fill --url "$(url 0)" --start "$start_at" --count "$hint_count" --value-size 4096 -c 16 --ack 2 --from 3 >/dev/null
        for _ in $(seq 1 60); do
          pending="$(curl -fs "$(url 0)/v0/status" | jq '[.hints[].pendingBytes] | add // 0')"
          [ "$pending" -ge $((hint_mb << 20)) ] && break
          sleep 1
        done
      fi
      pending="$(curl -fs "$(url 0)/v0/status" | jq -c '[.hints[] | {pending, pendingBytes}]')"
      start_one 2 --anti-entropy-interval 0
      fresh_keys
      line="$(bench --url "$urls" -w put --keys 2100000000 --distribution sequential --start "$start_at" -c 16 -t 2 -R "$hint_rate" \
        -d "${hint_secs}s" --warmup 1s | percentiles)"
      after="$(curl -fs "$(url 0)/v0/status" | jq -c '[.hints[] | {pending, delivered}]')"
      echo "round $round hints $mode: PUT at $hint_rate/s: $line; node0 hints before $pending, after $after"
      grep -h "hinted write(s) delivered in" "$dir/node-${ports[0]}.log" | tail -1 || true
      stop_nodes
      : >"$dir/node-${ports[0]}.log"
    done
  done
  rm -rf "$dir"/data-*
fi
