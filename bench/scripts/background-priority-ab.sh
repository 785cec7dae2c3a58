#!/usr/bin/env bash
# Flush and compaction threads at a lower CPU priority against the default, side by side: two nodes
# (-Xmx128m, same jar) started together; node B's dht-storage-flush and dht-storage-compact threads
# are set from outside (MODE idle: chrt -i, SCHED_IDLE, on both; compidle: on the compaction thread
# only; nice19 / compnice: renice 19), which is what -Ddht.storage.backgroundPriority=idle|low does
# from inside. Each node is warmed (20 s of closed-loop PUT over 64 connections, 10 s over CONNS),
# then ROUNDS runs of PUT at RATE over CONNS connections with --pipeline PIPE alternate between
# them. Per run: the percentiles and, from the timeline and the node's log
# (stalls-by-event.py), the worst latency during each compaction and flush.
# MODE prop: nothing is set from outside; give node B its options in B_OPTS instead, e.g.
# B_OPTS=-Ddht.storage.backgroundPriority=idle (and A_OPTS for node A).
# Usage: bench/scripts/background-priority-ab.sh ROUNDS CONNS RATE PIPE SECS MODE
#        env DATA (parent of the data directories, default a new directory under /tmp), JAR, A_OPTS, B_OPTS
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
rounds=$1 conns=$2 rate=$3 pipe=$4 secs=$5 mode=$6
jar="${JAR:-$root/cli/target/dht.jar}"
dir="$(mktemp -d /tmp/dht-priority-ab.XXXXXX)"
data="${DATA:-$dir}"
B() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
t=2; [ "$conns" = 1 ] && t=1
pids=()
# At exit: the nodes stop and their data goes (about 1.4 GB a run); logs and timelines stay in $dir.
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$data/dA" "$data/dB"' EXIT
for n in A B; do
  port=$([ $n = A ] && echo 19601 || echo 19602)
  extra=$([ $n = A ] && echo "${A_OPTS:-}" || echo "${B_OPTS:-}")
  # shellcheck disable=SC2086
  "${java[@]}" -Xmx128m $extra -jar "$jar" serve --port $port --data "$data/d$n" >"$dir/node$n.log" 2>&1 &
  pids+=($!)
done
wait_ready http://127.0.0.1:19601; wait_ready http://127.0.0.1:19602
for tt in /proc/"${pids[1]}"/task/*; do
  c=$(cat "$tt/comm"); tid=${tt##*/}
  case "$mode:$c" in
    idle:dht-storage-com|idle:dht-storage-flu|compidle:dht-storage-com) chrt -i -p 0 "$tid";;
    nice19:dht-storage-com|nice19:dht-storage-flu|compnice:dht-storage-com) renice -n 19 -p "$tid" >/dev/null;;
  esac
done
load=(-w put --distribution sequential --keys 2000000000)
machine_line
# Each run writes keys of its own (fresh_keys), as the recorded runs of 27 Nov did not: theirs each
# began at k0000000000, so compactions met the earlier runs' keys again.
for port in 19601 19602; do
  fresh_keys; B --url http://127.0.0.1:$port "${load[@]}" --start "$start_at" -c 64 -t 2 -R 0 -d 20s --warmup 0s --seed $RANDOM >/dev/null
  fresh_keys; B --url http://127.0.0.1:$port "${load[@]}" --start "$start_at" -c "$conns" -t $t --pipeline "$pipe" -R 0 -d 10s --warmup 0s --seed $RANDOM >/dev/null
done
for r in $(seq 1 "$rounds"); do
  for n in A B; do
    port=$([ $n = A ] && echo 19601 || echo 19602); name=$([ $n = A ] && echo "default${A_OPTS:+ $A_OPTS}" || echo "$mode${B_OPTS:+ $B_OPTS}")
    out="$dir/r$r$n"
    fresh_keys
    line=$(B --url http://127.0.0.1:$port "${load[@]}" --start "$start_at" -c "$conns" -t $t --pipeline "$pipe" -R "$rate" -d "${secs}s" --warmup 5s --seed $RANDOM --out "$out" \
      | awk '/^ +50\.000%/ {p50=$2} /^ +99\.000%/ {p99=$2} /^ +99\.900%/ {p999=$2} /^ +100\.000%/ {max=$2} END {printf "p50 %s, p99 %s, p99.9 %s, max %s", p50, p99, p999, max}')
    echo "round $r $name c=$conns pipe=$pipe rate=$rate: $line; $(python3 "$root/bench/scripts/stalls-by-event.py" "$out/timeline.txt" "$dir/node$n.log")"
  done
done
