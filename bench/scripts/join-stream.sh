#!/usr/bin/env bash
# Issue #39's streaming rate (docs/benchmarks.md, "Join streaming rate"): how fast a node that
# joins a filled cluster receives its data over loopback, unpaced.
#   1. fills KEYS keys (default 500000) of VALUE_SIZE bytes (default 2000: about 1 GB) into one
#      node alone (faster than through three on a shared machine), stops it, and copies its data
#      directory to two more: a three-node cluster (replication factor 3) with every key on each;
#   2. starts the three, then a fourth with --join and --rebalance-bytes-per-second RATE (default
#      0: no limit), and polls the joiner's /v0/status every 2 s: bytes and keys received so far,
#      the rate over the last interval and since the join began;
#   3. prints the bytes the joiner received (its rebalance bytesMoved: key + value + 24 per version)
#      in MB/s (10^6 bytes), over the time from its start to the end of its join and over the
#      streams alone (the joiner's log: its first request to the last source's end), and each
#      source's share from the joiner's log; and the CPU time the joiner and the members used
#      meanwhile, so that a figure from a shared machine can be read per CPU second too.
# SECRET=FILE runs the cluster with --cluster-secret-file FILE (chmod 600), its streams sealed.
# Every node runs -Xmx256m, one event loop each. Run it niced on a shared machine:
#   nice -n 19 ionice -c 3 bench/scripts/join-stream.sh    (JAR overrides cli/target/dht.jar; DIR the data root)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
keys="${KEYS:-500000}"
value_size="${VALUE_SIZE:-2000}"
rate="${RATE:-0}"
jar="${JAR:-$root/cli/target/dht.jar}"
secret=(); [ -z "${SECRET:-}" ] || secret=(--cluster-secret-file "$SECRET")
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
dir="${DIR:-$(mktemp -d /tmp/dht-join-stream.XXXXXX)}"
mkdir -p "$dir"
pids=()
cleanup() { kill_pids; }
trap 'cleanup; rm -rf "$dir"/data-*' EXIT
ports=($(free_port) $(free_port) $(free_port) $(free_port))
urls="$(node_urls "${ports[@]:0:3}")"
url() { echo "http://127.0.0.1:${ports[$1]}"; }
now() { date +%s.%N; }

machine_line
echo "keys $keys of $value_size bytes, joiner budget ${rate} bytes/s (0: no limit), jar $jar, secret ${SECRET:-none}"

p="${ports[0]}"
"${java[@]}" -Xmx256m -jar "$jar" serve --port "$p" --data "$dir/data-$p" --io-threads 1 >>"$dir/node-$p.log" 2>&1 &
pids[0]=$!
wait_ready "$(url 0)"
t0=$SECONDS
"${java[@]}" -cp "$jar" dht.bench.BenchMain fill --url "$(url 0)" --count "$keys" --value-size "$value_size" -c 32 2>&1 \
  | awk 'NR % 10 == 1 || /^filled/ { print; fflush() }'
echo "filled node 0 alone in $((SECONDS - t0)) s; $(wait_quiet "$(url 0)")"
cleanup; pids=()
cp -a "$dir/data-$p" "$dir/data-${ports[1]}"
cp -a "$dir/data-$p" "$dir/data-${ports[2]}"
echo "data directory of each member: $(du -sh "$dir/data-$p" | cut -f1)"
for i in 0 1 2; do
  q="${ports[$i]}"
  "${java[@]}" -Xmx256m -jar "$jar" serve --port "$q" --data "$dir/data-$q" --cluster "$urls" \
    --self "$(url $i)" --io-threads 1 --anti-entropy-interval 0 ${secret[@]+"${secret[@]}"} >>"$dir/node-$q.log" 2>&1 &
  pids[$i]=$!
done
for i in 0 1 2; do wait_ready "$(url $i)"; done

j="${ports[3]}"
start="$(now)"
"${java[@]}" -Xmx256m -jar "$jar" serve --port "$j" --data "$dir/data-$j" --self "$(url 3)" --join "$(url 0)" \
  --io-threads 1 --anti-entropy-interval 0 --rebalance-bytes-per-second "$rate" ${secret[@]+"${secret[@]}"} >>"$dir/node-$j.log" 2>&1 &
pids[3]=$!
wait_ready "$(url 3)"
# CPU time from here on: the joiner's (its JVM start excluded) and the three members'.
hz="$(getconf CLK_TCK)"
cpu_join0="$(ticks "${pids[3]}")"; cpu_members0="$(ticks "${pids[0]}" "${pids[1]}" "${pids[2]}")"
last_t="$start"; last_b=0
while true; do
  sleep 2
  s="$(curl -fs "$(url 3)/v0/status" || true)"
  [ -n "$s" ] || continue
  t="$(now)"
  b="$(jq '.rebalance.bytesMoved' <<<"$s")"
  k="$(jq '.rebalance.keysMoved' <<<"$s")"
  echo "$(printf '%6.1f' "$(echo "$t - $start" | bc)") s: $k keys, $((b / 1000000)) MB received;" \
    "$(echo "scale=1; ($b - $last_b) / ($t - $last_t) / 1000000" | bc) MB/s last interval," \
    "$(echo "scale=1; $b / ($t - $start) / 1000000" | bc) MB/s since the join began"
  last_t="$t"; last_b="$b"
  if [ "$(jq '.joining | length' <<<"$s")" = 0 ]; then break; fi
  if [ "$(echo "$t - $start > 900" | bc)" = 1 ]; then echo "not joined after 900 s"; break; fi
done
end="$(now)"
cpu_join="$(echo "scale=1; ($(ticks "${pids[3]}") - $cpu_join0) / $hz" | bc)"
cpu_members="$(echo "scale=1; ($(ticks "${pids[0]}" "${pids[1]}" "${pids[2]}") - $cpu_members0) / $hz" | bc)"
s="$(curl -fs "$(url 3)/v0/status")"
b="$(jq '.rebalance.bytesMoved' <<<"$s")"
grep -o 'the stream from .* is done: .*' "$dir/node-$j.log" || true
echo "joined: $(jq '.rebalance.keysMoved' <<<"$s") keys, $b bytes received (bytesScanned $(jq '.rebalance.bytesScanned' <<<"$s"))" \
  "in $(echo "scale=1; ($end - $start) / 1" | bc) s from the joiner's start to its join's end:" \
  "$(echo "scale=1; $b / ($end - $start) / 1000000" | bc) MB/s"
# The streams alone, by the joiner's log: from "joining: streaming" to the last source's end.
log_time() { date -d "$(grep -m1 "$1" "$dir/node-$j.log" | cut -d' ' -f1)" +%s.%N; }
first="$(log_time 'joining: streaming the keys')"
last="$(date -d "$(grep 'is done: ' "$dir/node-$j.log" | tail -1 | cut -d' ' -f1)" +%s.%N)"
echo "streams: $(echo "scale=1; ($last - $first) / 1" | bc) s from the first request to the last source's end:" \
  "$(echo "scale=1; $b / ($last - $first) / 1000000" | bc) MB/s"
echo "CPU from the joiner's ready to its join's end: joiner $cpu_join s, the three members $cpu_members s;" \
  "$(echo "scale=1; $b / 1000000 / $cpu_join" | bc) MB per joiner CPU second," \
  "$(echo "scale=1; $b / 1000000 / ($cpu_join + $cpu_members)" | bc) MB per CPU second of all four"
