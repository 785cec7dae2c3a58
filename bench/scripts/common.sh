# Sourced by the benchmark scripts once they have set $root: picks the JDK 25 and defines what
# they share, so a change to how nodes are started or described is made once.
. "$root/bin/java-env.sh"
dht_find_jdk
java=("$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)

# The line each result file starts with: the machine, as the figures depend on it.
# Autogroup (on by default on many distributions) shares the CPU between sessions before nice
# values count, so a benchmark cannot out-prioritise niced work started from other sessions.
machine_line() {
  echo "machine: $(nproc) cores, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg), sched_autogroup $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo n/a)"
}

# A JARS entry names a build, optionally with JVM options for its nodes: jar, or jar@-Dx=y,-Dz=w.
# Sets $jar, $opts (those options, space-separated) and $label (the jar's directory, @options if any).
build_spec() {
  jar="${1%%@*}"; opts=""; label="$(basename "$(dirname "$jar")")"
  if [ "$1" != "$jar" ]; then
    opts="${1#*@}"; label="$label@$opts"; opts="${opts//,/ }"
  fi
}

# Waits until the node at URL answers /v0/status, polling every 0.2 s, at most TRIES times (default 300).
wait_ready() {
  local url="$1" tries="${2:-300}"
  for _ in $(seq 1 "$tries"); do curl -fs "$url/v0/status" >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "no answer from $url/v0/status after $tries tries, 0.2 s apart" >&2
  return 1
}

# Waits until every node at the given URLs reports no pending flush or compaction (polling every
# second, at most 600 s), then prints how long that took. A GET benchmark run right after a fill
# otherwise measures reads racing the fill's own compactions, not reads of a filled database.
wait_quiet() {
  local t0=$SECONDS url s busy
  while [ $((SECONDS - t0)) -lt 600 ]; do
    busy=0
    for url in "$@"; do
      s="$(curl -fs "$url/v0/status" || true)"
      [[ "$s" == *'"pendingFlushes":0,"pendingCompactions":0'* ]] || busy=1
    done
    [ "$busy" = 0 ] && break
    sleep 1
  done
  echo "quiet after $((SECONDS - t0)) s"
}

# node_urls PORT...: the comma-separated URLs of nodes on those loopback ports (a --cluster list).
node_urls() {
  local list="" p
  for p in "$@"; do list="${list:+$list,}http://127.0.0.1:$p"; done
  echo "$list"
}

# start_nodes JAR "JVM OPTIONS" PORT...: starts one node per port as a cluster of those ports, in
# the background, each -Xmx256m (an -Xmx in the options wins), its data and log under $dir, their
# pids in $pids; returns once every node answers /v0/status. SERVE_ARGS adds flags to every node.
start_nodes() {
  local jar="$1" opts="$2"; shift 2
  local list p io=()
  list="$(node_urls "$@")"
  # Several nodes on this machine share its cores: each gets its share of event loops, as
  # bin/dht cluster gives them (IO_THREADS overrides; IO_THREADS=none passes nothing, for builds
  # before --io-threads existed).
  local share=$(( $(nproc) / $# )); [ "$share" -ge 1 ] || share=1
  [ "$#" -gt 1 ] && io=(--io-threads "${IO_THREADS:-$share}")
  [ "${IO_THREADS:-}" = none ] && io=()
  pids=()
  for p in "$@"; do
    "${java[@]}" -Xmx256m $opts -jar "$jar" serve --port "$p" --data "$dir/data-$p" --cluster "$list" \
      --self "http://127.0.0.1:$p" "${io[@]}" ${SERVE_ARGS:-} >"$dir/node-$p.log" 2>&1 &
    pids+=($!)
  done
  for p in "$@"; do
    wait_ready "http://127.0.0.1:$p"
  done
}

# percentiles: reads a dht bench summary on stdin and prints its rate and tail in one line,
# "R req/s, p50 A, p99 B, p99.9 C, max D".
percentiles() {
  awk '/^ +50\.000%/ {p50=$2} /^ +99\.000%/ {p99=$2} /^ +99\.900%/ {p999=$2} /^ +100\.000%/ {mx=$2}
    /^Requests\/sec/ {rps=$2} END {printf "%s req/s, p50 %s, p99 %s, p99.9 %s, max %s", rps, p50, p99, p999, mx}'
}

# fresh_keys: sets $start_at to the first key index of a range no earlier call in this script
# handed out (100 million keys apart, within the 2e9 key space of the PUT runs), for
# `--distribution sequential --start "$start_at"`: without it every run begins at k0000000000 and
# a run that follows another on the same node rewrites its keys instead of writing new ones.
start_at=-100000000
fresh_keys() { start_at=$(( (start_at + 100000000) % 2000000000 )); }

# ticks PID...: the CPU time (utime + stime, clock ticks) the processes have used so far.
ticks() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$t"; }

# served OP PORT...: the client requests of that op (put, get) the nodes on those loopback ports
# have answered so far, by their /metrics ($scheme, default http).
served() {
  local op="$1" p; shift
  for p in "$@"; do
    curl -fs "${scheme:-http}://127.0.0.1:$p/metrics" | awk -v op="op=\"$op\"" 'index($0, "dht_http_requests_seconds_count{" op) == 1 {s += $NF} END {printf "%d\n", s}' &
  done | awk '{n += $1} END {print n + 0}'
}

# kill_pids: stops the processes in $pids (the nodes a script started) and waits for every child.
kill_pids() {
  local p
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}

# free_port: a loopback TCP port that is free now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
