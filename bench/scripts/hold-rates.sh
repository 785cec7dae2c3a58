#!/usr/bin/env bash
# Issue #43's method: which constant rates a server holds (p99 under 10 ms), measured by wrk2 with
# 30 s steps after a 30 s closed-loop warm-up, one server at a time, nginx beside the node in the
# same run. Per round:
#   nginx (static 200), GET at each of NGINX_RATES, 64 connections; PUT at NGINX_PUT_RATES (if any);
#     once for each of NGINX_LISTEN (default "shared": its workers accept from one socket;
#     "reuseport": one socket per worker, nginx.sh), restarted between them;
#   with FLOOR_RATES, `dht bench floor` (Netty's HTTP codec alone, -Xmx128m, stores nothing):
#     PUT at each of FLOOR_RATES, the ceiling of Netty beside nginx's;
#   one node -Xmx128m: GET over KEYS filled keys at GET_RATES; PUT of unique keys at PUT_RATES;
#     then at 1 connection PUT and GET at ONE_RATE;
#   one node with the default heap: PUT at BIG_PUT_RATES;
#   with CLUSTER=1, a 3-node cluster (three JVMs, default heaps, --io-threads 1, 2/3 quorums),
#     CLUSTER_KEYS (default 300000) filled, all traffic through its first node: GET at
#     CLUSTER_GET_RATES, then PUT of unique keys at CLUSTER_PUT_RATES.
# Each line: setup, workload, connections, rate asked, rate served, p50, p99, p99.9, max, held,
# the server's CPU per request served (user + system, all its processes), the machine's idle
# share over the step (what neither the server nor wrk2 used), how that CPU was split over the
# server's processes when it has several (nginx's master and workers, the cluster's nodes), and
# wrk2's socket errors and non-2xx count when it had any.
# wrk2 keeps latency only after its 10 s calibration (it clears its histograms then): a step's p99
# covers its last ~20 s, while the rate served counts all 30 s, so a stall in the first 10 s shows
# only as a rate served short of the rate asked (a clean step serves about 99.7%).
# Needs nginx-light and wrk2 (WRK2, default /opt/wrk2/wrk: built from github.com/giltene/wrk2).
# Usage: ROUNDS=2 JAR=cli/target/dht.jar bench/scripts/hold-rates.sh
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
wrk2="${WRK2:-/opt/wrk2/wrk}"
rounds="${ROUNDS:-1}"
secs="${SECS:-30}"
warm="${WARM:-30}"
keys="${KEYS:-1000000}"
nginx_rates="${NGINX_RATES:-70000 90000}"
nginx_put_rates="${NGINX_PUT_RATES:-}"
nginx_listen="${NGINX_LISTEN:-shared}"
floor_rates="${FLOOR_RATES:-}"
get_rates="${GET_RATES:-70000}"
put_rates="${PUT_RATES:-50000 60000}"
big_put_rates="${BIG_PUT_RATES:-70000}"
one_rate="${ONE_RATE:-12000}"
cluster_keys="${CLUSTER_KEYS:-300000}"
cluster_get_rates="${CLUSTER_GET_RATES:-25000 30000}"
cluster_put_rates="${CLUSTER_PUT_RATES:-20000 25000}"
jar="${JAR:-$root/cli/target/dht.jar}"
[ -x "$wrk2" ] || { echo "needs wrk2 at $wrk2 (WRK2=...)" >&2; exit 1; }
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
dir="$(mktemp -d /tmp/dht-hold-rates.XXXXXX)"
nginx_port=18080
port=18090
url="http://127.0.0.1:$port"
. "$root/bench/scripts/nginx.sh"
bench() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
cpu_pids=() # the server's processes: each step prints their CPU time per request served
pid_ticks() { local p; for p in "${cpu_pids[@]}"; do awk '{printf "%d ", $14 + $15}' "/proc/$p/stat"; done; } # each process's CPU ticks
sum() { local v t=0; for v in $1; do t=$((t + v)); done; echo "$t"; }
idle_ticks() { awk '/^cpu / {print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9}' /proc/stat; } # idle, all

# step SETUP WORKLOAD CONNECTIONS RATE URL [env...]: one 30 s wrk2 step, one result line.
step() {
  local setup="$1" work="$2" c="$3" rate="$4" target="$5"; shift 5
  local t=$([ "$c" = 1 ] && echo 1 || echo 2) script=() out ticks idle0 all0 idle1 all1
  [ "$work" = nginx ] || script=(-s "$root/bench/wrk2/$work.lua")
  local each0 each1 split=""
  each0=$(pid_ticks); read -r idle0 all0 < <(idle_ticks)
  out=$(env "$@" "$wrk2" -t"$t" -c"$c" -d"${secs}s" -R"$rate" --latency "${script[@]}" "$target")
  each1=$(pid_ticks); read -r idle1 all1 < <(idle_ticks)
  ticks=$(($(sum "$each1") - $(sum "$each0")))
  if [ "${#cpu_pids[@]}" -gt 1 ] && [ "$ticks" -gt 0 ]; then # each process's share of the server's CPU
    split="  split $(paste -d' ' <(tr ' ' '\n' <<<"$each0") <(tr ' ' '\n' <<<"$each1") | awk -v t="$ticks" 'NF == 2 {printf "%s%d", sep, ($2 - $1) * 100 / t; sep = "/"}')%"
  fi
  echo "$out" | awk -v s="$setup" -v w="$work" -v c="$c" -v r="$rate" -v ticks="$ticks" -v hz="$(getconf CLK_TCK)" -v secs="$secs" -v shares="$split" \
    -v idle="$(( (idle1 - idle0) * 100 / (all1 - all0 > 0 ? all1 - all0 : 1) ))" '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /m$/) return v * 60000; if (v ~ /s$/) return v * 1000; return v }
    /^ +50\.000%/ {p50=ms($2)} /^ +99\.000%/ {p99=ms($2)} /^ +99\.900%/ {p999=ms($2)} /^ *100\.000%/ {mx=ms($2)}
    /^Requests\/sec/ {rps=$2}
    /Socket errors|Non-2xx/ {sub(/^ +/, ""); err = err "  (" $0 ")"}
    END {printf "%-12s %-5s c=%-2s asked %6d served %9.0f  p50 %7.2f  p99 %8.2f  p99.9 %8.2f  max %8.2f ms  %-8s  cpu %5.1f us/req  idle %2d%%%s%s\n",
         s, w, c, r, rps, p50, p99, p999, mx, (p99 < 10 && rps >= 0.99 * r) ? "HELD" : "not held",
         (rps > 0 ? ticks / hz * 1e6 / (rps * secs) : 0), idle, shares, err}'
}
warmup() { # WORKLOAD CONNECTIONS TARGET [env...]: closed-loop wrk (wrk2 at a rate far above any held)
  local work="$1" c="$2" target="$3"; shift 3
  local t=$([ "$c" = 1 ] && echo 1 || echo 2) script=()
  [ "$work" = nginx ] || script=(-s "$root/bench/wrk2/$work.lua")
  env "$@" "$wrk2" -t"$t" -c"$c" -d"${warm}s" -R 1000000 "${script[@]}" "$target" >/dev/null
}
start_node() { # HEAP (or "default") NAME
  local heap=()
  # -Xms as well, as bin/dht starts a node given -Xmx (a heap that does not shrink under load)
  [ "$1" = default ] || heap=("-Xmx$1" "-Xms$1")
  "${java[@]}" "${heap[@]}" -jar "$jar" serve --port "$port" --data "$dir/data-$2" >"$dir/node-$2.log" 2>&1 &
  pid=$!
  wait_ready "$url" || { kill "$pid"; exit 1; }
  cpu_pids=("$pid")
}
stop_node() { kill "$pid"; wait "$pid" || true; rm -rf "$dir/data-$1"; }
cluster_ports=(18091 18092 18093)
start_cluster() { # three nodes, default heaps, their pids in cluster_pids
  local list p
  list="$(node_urls "${cluster_ports[@]}")"
  cluster_pids=()
  for p in "${cluster_ports[@]}"; do
    "${java[@]}" -jar "$jar" serve --port "$p" --data "$dir/cdata-$p" --cluster "$list" \
      --self "http://127.0.0.1:$p" --io-threads 1 >"$dir/cnode-$p.log" 2>&1 &
    cluster_pids+=($!)
  done
  for p in "${cluster_ports[@]}"; do wait_ready "http://127.0.0.1:$p" || { kill "${cluster_pids[@]}"; exit 1; }; done
  cpu_pids=("${cluster_pids[@]}")
}
stop_cluster() { kill "${cluster_pids[@]}"; wait "${cluster_pids[@]}" || true; rm -rf "$dir"/cdata-*; }
start=0
# put_env sets penv, the next PUT step's settings: keys no step has written. (It runs in this shell:
# as $(put_env), before 4 Dec, it ran in a subshell and every PUT step began at the same key.)
put_env() { start=$((start + 100000000)); penv=(KEYS=2000000000 DISTRIBUTION=sequential START=$start SEED=$RANDOM); }

machine_line
echo "date: $(date -u +%FT%TZ), jar $jar, steps ${secs}s after ${warm}s warm-up, wrk2 $(cd "$(dirname "$wrk2")" && git rev-parse --short HEAD 2>/dev/null || echo '?')"
for r in $(seq "$rounds"); do
  echo "# round $r"
  for listen in $nginx_listen; do
    case "$listen" in shared) reuse=0 ;; reuseport) reuse=1 ;; *) echo "NGINX_LISTEN: shared or reuseport, not $listen" >&2; exit 2 ;; esac
    NGINX_REUSEPORT=$reuse start_nginx "$nginx_port" "$dir"
    name=nginx; [ "$listen" = shared ] || name="nginx-$listen"
    cpu_pids=($(pgrep -x nginx))
    warmup nginx 64 "http://127.0.0.1:$nginx_port/"
    for rate in $nginx_rates; do step "$name" nginx 64 "$rate" "http://127.0.0.1:$nginx_port/"; done
    if [ -n "$nginx_put_rates" ]; then
      put_env; warmup put 64 "http://127.0.0.1:$nginx_port" "${penv[@]}"
      for rate in $nginx_put_rates; do put_env; step "$name" put 64 "$rate" "http://127.0.0.1:$nginx_port" "${penv[@]}"; done
    fi
    stop_nginx "$dir"
  done

  if [ -n "$floor_rates" ]; then
    "${java[@]}" -Xmx128m -Xms128m -cp "$jar" dht.bench.BenchMain floor --port "$port" >"$dir/floor.log" 2>&1 &
    pid=$!
    wait_ready "$url" || { kill "$pid"; exit 1; } # the floor answers every path, /v0/status too
    cpu_pids=("$pid")
    put_env; warmup put 64 "$url" "${penv[@]}"
    for rate in $floor_rates; do put_env; step floor-128m put 64 "$rate" "$url" "${penv[@]}"; done
    kill "$pid"; wait "$pid" || true
  fi

  start_node 128m small
  bench fill --url "$url" --count "$keys" --value-size 100 -c 64 | tail -n 1
  wait_quiet "$url" >/dev/null
  warmup get 64 "$url" KEYS="$keys"
  for rate in $get_rates; do step "node-128m" get 64 "$rate" "$url" KEYS="$keys"; done
  put_env; warmup put 64 "$url" "${penv[@]}"
  for rate in $put_rates; do put_env; step "node-128m" put 64 "$rate" "$url" "${penv[@]}"; done
  put_env; warmup put 1 "$url" "${penv[@]}"
  put_env; step "node-128m" put 1 "$one_rate" "$url" "${penv[@]}"
  warmup get 1 "$url" KEYS="$keys"
  step "node-128m" get 1 "$one_rate" "$url" KEYS="$keys"
  stop_node small

  start_node default big
  put_env; warmup put 64 "$url" "${penv[@]}"
  for rate in $big_put_rates; do put_env; step "node-default" put 64 "$rate" "$url" "${penv[@]}"; done
  stop_node big

  if [ "${CLUSTER:-0}" = 1 ]; then
    start_cluster
    curl_url="http://127.0.0.1:${cluster_ports[0]}"
    bench fill --url "$(node_urls "${cluster_ports[@]}")" --count "$cluster_keys" --value-size 100 -c 64 | tail -n 1
    wait_quiet $(for p in "${cluster_ports[@]}"; do echo "http://127.0.0.1:$p"; done) >/dev/null
    warmup get 64 "$curl_url" KEYS="$cluster_keys"
    for rate in $cluster_get_rates; do step "cluster-3" get 64 "$rate" "$curl_url" KEYS="$cluster_keys"; done
    put_env; warmup put 64 "$curl_url" "${penv[@]}"
    for rate in $cluster_put_rates; do put_env; step "cluster-3" put 64 "$rate" "$curl_url" "${penv[@]}"; done
    stop_cluster
  fi
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
