#!/usr/bin/env bash
# Issue #39's "How fast" for a join (docs/benchmarks.md, "Adding a node while it serves"): a
# 3-node cluster (replication factor 3) holding DATA_MB of VALUE-byte values, filled into one node
# alone and copied to the other two (faster than through three on a shared machine). Phases, chosen
# with PHASES (default both):
#   p99   per round, from fresh copies of the filled data: RATE req/s of mixed traffic (READ_RATIO
#         gets, the rest overwrites of filled keys) through the three nodes for SECS s with no
#         change ("steady"), then the same while a fourth node joins ("move"), at the nodes'
#         --rebalance-bytes-per-second (the default unless NODE_FLAGS or ALT_FLAGS set one);
#         prints each run's rate and tail, and when the join ended, so that a window that
#         outlasted the move is seen as such. Both windows follow a 10 s closed-loop warm-up and
#         a wait for the members' first anti-entropy tree builds and for their flushes and
#         compactions to end. Each window's summary, latency.hgrm
#         and timeline.txt (the worst latency of each 100 ms, by wall-clock time, to lay beside
#         the nodes' logs) are kept under the run's directory, round-N-steady and round-N-move.
#         Each round first runs SETTLE s (default 60) at RATE after the tree builds. ALT_FLAGS,
#         flag sets split by '|', replaces NODE_FLAGS round by round in turn, e.g.
#         ALT_FLAGS=" |--rebalance-bytes-per-second 8388608" ROUNDS=4 alternates two budgets.
#         ALT_JVM does the same for JVM options, replacing JVM_FLAGS (otherwise every round's), e.g.
#         ALT_JVM=" |-Ddht.rebalance.sendPriority=low" ROUNDS=4. In any ALT_ list the empty choice
#         goes first: bash's read drops a trailing empty one.
#         ALT_JOINER alternates a command prefix for the joiner alone, e.g. ALT_JOINER=" |nice -n 19"
#         (on one machine the joiner's start competes with the members for the cores).
#         ALT_PIN alternates CPU pinning by round: empty (none) or MEMBER_CPUS:JOINER_CPUS, e.g.
#         ALT_PIN=" |0:1" ROUNDS=4. A pinned round runs the members and the client (warm-up,
#         settle and both windows) on MEMBER_CPUS and the joiner on JOINER_CPUS (taskset -c), as
#         if the joiner had a machine of its own; every pinned JVM keeps the machine's processor
#         count for its ergonomics (-XX:ActiveProcessorCount), so its GC and compilers are those
#         of an unpinned round.
#         PROFILE_CHANGE=EVENT (cpu, wall, alloc or lock) also profiles the three members by thread
#         (/admin/profile?threads=true) for PROFILE_SECS seconds (a number, default 8) from just
#         before the joiner's start, and the joiner for as long from when it answers, into
#         round-N-move/profile-PORT.html: the move's first seconds. The profilers disturb that
#         window, so its latency line is not a figure.
#   time  the time to add a fourth node, no client traffic: from its start until it is a member
#         and no node is rebalancing; prints progress every 10 s (bytes moved, rate).
# Usage: DATA_MB=1024 ROUNDS=2 bench/scripts/join-costs.sh   (JAR overrides cli/target/dht.jar)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
phases=" ${PHASES:-p99 time} "
data_mb="${DATA_MB:-1024}"
value="${VALUE:-1000}"
rate="${RATE:-2000}"
read_ratio="${READ_RATIO:-0.5}"
secs="${SECS:-30}"
rounds="${ROUNDS:-2}"
jar="${JAR:-$root/cli/target/dht.jar}"
# Extra flags for every node, e.g. NODE_FLAGS="--rebalance-bytes-per-second 8388608".
read -r -a node_flags <<<"${NODE_FLAGS:-}"
# Extra JVM options for every node, e.g. JVM_FLAGS="-Ddht.rebalance.sendPriority=low".
read -r -a jvm_flags <<<"${JVM_FLAGS:-}"
joiner_prefix=()
member_prefix=() # ALT_PIN's taskset for the members and the client, with pin_opts for every pinned JVM
pin_opts=()
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
keys=$(( data_mb * 1024 * 1024 / value ))
dir="$(mktemp -d /tmp/dht-join.XXXXXX)"
ports=(18610 18611 18612 18613)
url() { echo "http://127.0.0.1:${ports[$1]}"; }
urls="$(node_urls "${ports[@]:0:3}")"
# The client traffic of every load below: the warm-up, the settle, and both measured windows.
mixed=(--url "$urls" -w mixed --read-ratio "$read_ratio" --keys "$keys" --value-size "$value" -c 16)
pids=()
profilers=() # PROFILE_CHANGE's background requests
stop_profilers() {
  local p
  for p in "${profilers[@]}"; do kill "$p" 2>/dev/null || true; done
  profilers=()
}
stop_nodes() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap 'kill "${watcher:-}" 2>/dev/null || true; stop_profilers; stop_nodes' EXIT
bench() { "${member_prefix[@]}" "${java[@]}" "${pin_opts[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
start_member() {
  local i="$1" p="${ports[$1]}"
  "${member_prefix[@]}" "${java[@]}" -Xmx256m "${pin_opts[@]}" "${jvm_flags[@]}" -jar "$jar" serve --port "$p" --data "$dir/data-$p" --cluster "$urls" \
    --self "$(url "$i")" --io-threads 1 "${node_flags[@]}" >>"$dir/node-$p.log" 2>&1 &
  pids+=($!)
}
# JOINER=alone starts the fourth node as a cluster of its own instead (a control: the cost of a
# fourth JVM starting beside the members, without the join).
start_joiner() {
  local p="${ports[3]}" how=(--join "$(url 0)")
  [ "${JOINER:-join}" = alone ] && how=(--cluster "$(url 3)")
  "${joiner_prefix[@]}" "${java[@]}" -Xmx256m "${pin_opts[@]}" "${jvm_flags[@]}" -jar "$jar" serve --port "$p" --data "$dir/data-$p" --self "$(url 3)" \
    "${how[@]}" --io-threads 1 "${node_flags[@]}" >>"$dir/node-$p.log" 2>&1 &
  pids+=($!)
}
# Tree builds the three members' logs have reported so far.
members_built() { cat "$dir"/node-{${ports[0]},${ports[1]},${ports[2]}}.log 2>/dev/null | grep -c "anti-entropy trees built" || true; }
# Fresh copies of the filled data for the three members; the joiner starts empty.
fresh_data() {
  rm -rf "$dir"/data-*
  for p in "${ports[@]:0:3}"; do cp -a "$dir/filled" "$dir/data-$p"; done
}
# Whether the join is over: the fourth node a member on node 0, and no node rebalancing.
joined() {
  local s i
  s="$(curl -fs "$(url 0)/v0/status" || true)"
  [[ "$s" == *"\"$(url 3)\""* ]] || return 1
  jq -e --arg u "$(url 3)" '(.members | index($u)) != null and (.joining | length) == 0' <<<"$s" >/dev/null || return 1
  for i in 0 1 2 3; do
    s="$(curl -fs "$(url "$i")/v0/status" || echo '{"rebalancing":true}')"
    [ "$(jq -r .rebalancing <<<"$s")" = false ] || return 1
  done
}
# Polls joined() every second in the background; writes the seconds since $1 to $dir/joined-at.
watch_join() {
  local t0="$1"
  rm -f "$dir/joined-at"
  ( until joined; do sleep 1; done; echo "$(echo "$(date +%s.%N) - $t0" | bc)" >"$dir/joined-at" ) &
  watcher=$!
}

echo "data and logs under $dir"
machine_line
echo "build: $jar ($(cd "$root" && git rev-parse --short HEAD)); $data_mb MB as $keys keys of $value bytes"
p="${ports[0]}"
"${java[@]}" -Xmx256m -jar "$jar" serve --port "$p" --data "$dir/filled" >>"$dir/node-fill.log" 2>&1 &
pids=($!)
wait_ready "$(url 0)"
t0=$SECONDS
bench fill --url "$(url 0)" --count "$keys" --value-size "$value" -c 64 | grep -E '^(filled|Filled)' || true
echo "filled in $((SECONDS - t0)) s; $(wait_quiet "$(url 0)")"
stop_nodes
echo "filled data: $(du -sm "$dir/filled" | cut -f1) MB on disk"

if [[ "$phases" == *" p99 "* ]]; then
  for round in $(seq 1 "$rounds"); do
    if [ -n "${ALT_FLAGS:-}" ]; then # node flags by round, in turn: side by side in one run
      IFS='|' read -r -a alts <<<"$ALT_FLAGS"
      read -r -a node_flags <<<"${alts[$(( (round - 1) % ${#alts[@]} ))]}"
      echo "round $round node flags: ${node_flags[*]:-(none)}"
    fi
    if [ -n "${ALT_JOINER:-}" ]; then # the joiner's command prefix by round, in turn
      IFS='|' read -r -a alts <<<"$ALT_JOINER"
      read -r -a joiner_prefix <<<"${alts[$(( (round - 1) % ${#alts[@]} ))]}"
      echo "round $round joiner prefix: ${joiner_prefix[*]:-(none)}"
    fi
    if [ -n "${ALT_PIN:-}" ]; then # CPU pinning by round, in turn; replaces ALT_JOINER's prefix
      IFS='|' read -r -a alts <<<"$ALT_PIN"
      pin="$(echo "${alts[$(( (round - 1) % ${#alts[@]} ))]}" | xargs)"
      member_prefix=(); pin_opts=()
      if [ -n "$pin" ]; then
        member_prefix=(taskset -c "${pin%%:*}")
        joiner_prefix=(taskset -c "${pin#*:}")
        pin_opts=("-XX:ActiveProcessorCount=$(nproc)")
      fi
      if [ -n "$pin" ]; then echo "round $round pinned: members and client on CPU ${pin%%:*}, joiner on ${pin#*:}"
      else echo "round $round pinned: no"; fi
    fi
    if [ -n "${ALT_JVM:-}" ]; then # JVM options by round, in turn, as ALT_FLAGS
      IFS='|' read -r -a alts <<<"$ALT_JVM"
      read -r -a jvm_flags <<<"${alts[$(( (round - 1) % ${#alts[@]} ))]}"
      echo "round $round JVM options: ${jvm_flags[*]:-(none)}"
    fi
    fresh_data
    built0="$(members_built)"
    for i in 0 1 2; do start_member "$i"; done
    for i in 0 1 2; do wait_ready "$(url "$i")"; done
    bench "${mixed[@]}" -R 0 -d 10s --warmup 0s >/dev/null
    # Steady state first: every member's anti-entropy trees built, flushes and compactions done.
    t1=$SECONDS
    # (none to wait for with anti-entropy off)
    if [[ " ${node_flags[*]:-} " != *" --anti-entropy-interval 0 "* ]]; then
      until [ "$(members_built)" -ge $((built0 + 3)) ] || [ $((SECONDS - t1)) -ge 600 ]; do sleep 1; done
    fi
    built=$((SECONDS - t1))
    # Then SETTLE s (default 60; 0: none) at the measured rate: the write path changes once the
    # trees are built, and on a slow machine the C2 compiler threads stayed busy long after, which
    # a steady window begun at once measured (p99 0.35-4.5 s at 1,000-2,000 req/s, 30 Nov).
    if [ "${SETTLE:-60}" -gt 0 ]; then
      bench "${mixed[@]}" -R "$rate" -d "${SETTLE:-60}s" --warmup 0s >/dev/null
    fi
    echo "round $round: trees built $built s after the warm-up; $(wait_quiet ${urls//,/ })"
    echo "round $round steady: $(bench "${mixed[@]}" -R "$rate" -d "${secs}s" --warmup 2s --out "$dir/round-$round-steady" | percentiles)"
    if [ -n "${PROFILE_CHANGE:-}" ]; then
      mkdir -p "$dir/round-$round-move"
      for i in 0 1 2; do
        curl -fsS --max-time 120 -o "$dir/round-$round-move/profile-${ports[$i]}.html" \
          "$(url "$i")/admin/profile?event=$PROFILE_CHANGE&duration=${PROFILE_SECS:-8}s&threads=true" &
        profilers+=($!)
      done
      sleep 0.5 # time for the profilers to attach before the joiner starts (not checked)
    fi
    t0="$(date +%s.%N)"
    start_joiner
    if [ -n "${PROFILE_CHANGE:-}" ]; then
      ( for _ in $(seq 600); do curl -fs --max-time 2 -o /dev/null "$(url 3)/v0/status" && break; sleep 0.1; done
        curl -fsS --max-time 120 -o "$dir/round-$round-move/profile-${ports[3]}.html" \
          "$(url 3)/admin/profile?event=$PROFILE_CHANGE&duration=${PROFILE_SECS:-8}s&threads=true" ) &
      profilers+=($!)
    fi
    watch_join "$t0"
    line="$(bench "${mixed[@]}" -R "$rate" -d "${secs}s" --warmup 2s --out "$dir/round-$round-move" | percentiles)"
    window_end="$(echo "$(date +%s.%N) - $t0" | bc)"
    echo "round $round move: $line; window ended $window_end s after the joiner's start, join $( [ -f "$dir/joined-at" ] && echo "ended $(cat "$dir/joined-at") s after it" || echo "still under way")"
    kill "$watcher" 2>/dev/null || true
    stop_profilers
    stop_nodes
  done
  read -r -a node_flags <<<"${NODE_FLAGS:-}" # the time phase runs with NODE_FLAGS, whatever ALT_FLAGS
  read -r -a jvm_flags <<<"${JVM_FLAGS:-}"   # and JVM_FLAGS, whatever ALT_JVM
  joiner_prefix=(); member_prefix=(); pin_opts=()
fi

if [[ "$phases" == *" time "* ]]; then
  fresh_data
  for i in 0 1 2; do start_member "$i"; done
  for i in 0 1 2; do wait_ready "$(url "$i")"; done
  t0="$(date +%s.%N)"
  start_joiner
  wait_ready "$(url 3)"
  while ! joined; do
    sleep 10
    moved="$(curl -fs "$(url 3)/v0/status" | jq -c '.rebalance // {}' || echo '{}')"
    echo "$(echo "$(date +%s.%N) - $t0" | bc | cut -d. -f1) s: joiner's rebalance $moved"
  done
  echo "time: the fourth node joined $data_mb MB in $(echo "$(date +%s.%N) - $t0" | bc) s; joiner holds $(du -sm "$dir/data-${ports[3]}" | cut -f1) MB on disk"
  stop_nodes
fi
rm -rf "$dir"/data-* "$dir/filled"
