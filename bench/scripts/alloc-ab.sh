#!/usr/bin/env bash
# Heap bytes a node allocates per request, builds side by side: for each entry of JARS in turn
# (jar, or jar@-Dx=y: build_spec in common.sh), one node -Xmx128m -Xms128m (-Xms = -Xmx, as
# bin/dht sets it when given -Xmx); KEYS (default 300000) keys of 100 bytes filled and its
# flushes and compactions let finish (wait_quiet); then `dht bench` at RATE (default 15000)
# req/s, 64 connections, SECS (default 20) s after a 10 s warm-up, of WORK: get (default) or put
# of keys past the filled ones. Each line: the jar's file name (@ its options), p99, and dht
# bench's "Node allocation" line (the node's allocated bytes over the measured window, from its
# /metrics, per request served). Bytes per request hardly move with the machine's noise, so two
# builds compare in few rounds. Repeat a build in JARS to alternate rounds.
# Usage: JARS="a/dht.jar b/dht.jar a/dht.jar b/dht.jar" bench/scripts/alloc-ab.sh
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
port="${PORT:-18111}"
url="http://127.0.0.1:$port"
work="${WORK:-get}"
dir="$(mktemp -d /tmp/dht-alloc-ab.XXXXXX)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
machine_line
echo "date: $(date -u +%FT%TZ), $work at ${RATE:-15000} req/s, 64 connections, ${SECS:-20} s after 10 s of warm-up"
for spec in ${JARS:?JARS=jar[@opts] ...}; do
  build_spec "$spec"
  rm -rf "$dir/data"
  # shellcheck disable=SC2086
  "${java[@]}" -Xmx128m -Xms128m $opts -jar "$jar" serve --port "$port" --data "$dir/data" >"$dir/node.log" 2>&1 &
  pid=$!
  wait_ready "$url"
  "${java[@]}" -cp "$jar" dht.bench.BenchMain fill --url "$url" --count "${KEYS:-300000}" --value-size 100 -c 64 >/dev/null 2>&1
  wait_quiet "$url" >/dev/null
  if [ "$work" = get ]; then
    load=(-w get --keys "${KEYS:-300000}")
  else
    load=(-w put --distribution sequential --start "${KEYS:-300000}" --keys 2000000000 --value-size 100)
  fi
  line=$("${java[@]}" -cp "$jar" dht.bench.BenchMain --url "$url" "${load[@]}" -c 64 -t 2 -R "${RATE:-15000}" \
      -d "${SECS:-20}s" --warmup 10s 2>/dev/null | awk '/^ +99\.000%/ {p99=$2} /^Node allocation:/ {sub(/^Node allocation: /, ""); alloc=$0} END {print "p99 " p99 ", " alloc}')
  printf '%-28s %s\n' "$(basename "$jar")${opts:+@$opts}" "$line"
  kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
  pid=""
done
