#!/usr/bin/env bash
# The cost of issue #42's trust boundaries on a 3-node cluster on this machine: without either
# (plain), with --cluster-secret-file (secret), with TLS (tls: every node HTTPS only, https://
# peers checked against a CA made here with openssl, the load generator over TLS too), and both
# (secret+tls); alternating the modes within each of ROUNDS rounds, so a noisy machine weighs
# on all alike. Each mode gets fresh nodes (-Xmx256m, their share of event loops, as
# cluster-vs-node.sh starts them) and, at 64 connections over the three nodes:
#   PUT of unique keys: WARMUP s of closed loop, then SECS s closed loop, then RATE req/s for 15 s
#   (after 5 s unmeasured): its p99;
#   GET of KEYS keys filled first: the same.
# One line per run: rate, p50, p99, p99.9. SERVE_ARGS adds flags to every node (all modes), e.g.
# "--replica-timeout 5000". FLAME=1 also takes a CPU flame graph of the first node during each
# closed-loop PUT run and prints it read as text (`dht bench flame`), its top frames.
# A mode naming an engine, tls-jdk or tls-openssl, gives --tls-provider to the nodes and the
# generator alike (plain tls: auto, BoringSSL when it loads).
# Each line ends with the CPU per request over SECS - 6 s (at most 10) of its measured window
# (/proc utime+stime, as thread-cpu.sh takes them, over the client requests the nodes' /metrics
# counted): the three nodes', the generator's, and their sum, in microseconds; CPU per request,
# unlike throughput, holds on a shared machine (closed loop: what the throughput of a quiet
# machine would be inversely proportional to). GEN_ARGS: more options for the measured runs'
# generator (--spin 0us: it sleeps instead of spinning before each send, so its CPU is its work).
# CLOSED=0 skips the closed-loop runs (the warm-ups stay); GEN_JAVA_OPTS: the generator's JVM
# options (e.g. -agentpath:.../libasyncProfiler.so=start,event=cpu,file=gen-%p.html).
# JAR: the build to run (default: this checkout's cli/target/dht.jar). SWEEP=1 adds, per mode, the
# highest constant rate with p99 under 10 ms (dht bench sweep) of PUT and GET (STEP, START_RATE,
# MAX_STEPS, PRECISION: see sweep_line); FIXED=0 skips the fixed-rate runs.
# Usage: bench/scripts/trust-boundaries-ab.sh
#        env ROUNDS (3), MODES ("plain secret tls"), SECS (8), RATE (3000), KEYS (50000), WARMUP (20)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
rounds=${ROUNDS:-3} secs=${SECS:-8} rate=${RATE:-3000} keys=${KEYS:-50000} warmup=${WARMUP:-20}
modes=(${MODES:-plain secret tls})
jar="${JAR:-$root/cli/target/dht.jar}"
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
dir="$(mktemp -d /tmp/dht-trust-ab.XXXXXX)"
pids=()
cleanup() { kill_pids; }
trap 'cleanup; rm -rf "$dir"/data-*' EXIT

# The secret, and a CA with a certificate for 127.0.0.1 it signed (as TlsClusterTest makes them).
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$dir/secret"; chmod 600 "$dir/secret"
(cd "$dir"
 openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=dht bench CA"
 openssl req -newkey rsa:2048 -nodes -keyout node.key -out node.csr -subj /CN=localhost
 echo "subjectAltName=DNS:localhost,IP:127.0.0.1" >ext.cnf
 openssl x509 -req -in node.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out node.pem -days 2 -extfile ext.cnf
 "$JAVA_HOME/bin/keytool" -importcert -noprompt -alias ca -file ca.pem -keystore ca.p12 -storetype PKCS12 -storepass changeit
) >"$dir/certs.log" 2>&1
ports=(19301 19302 19303)
share=$(( $(nproc) / 3 )); [ "$share" -ge 1 ] || share=1

# mode_setup MODE: sets $scheme, $serve_args and $bench_args for that mode.
mode_setup() {
  scheme=http; serve_args=(); bench_args=()
  [[ "$1" == *secret* ]] && serve_args+=(--cluster-secret-file "$dir/secret")
  if [[ "$1" == *tls* ]]; then
    scheme=https; serve_args+=(--tls-cert "$dir/node.pem" --tls-key "$dir/node.key" --tls-ca "$dir/ca.pem")
  fi
  for engine in jdk openssl; do
    if [[ "$1" == *tls-$engine* ]]; then serve_args+=(--tls-provider "$engine"); bench_args+=(--tls-provider "$engine"); fi
  done
  urls=""; for p in "${ports[@]}"; do urls="${urls:+$urls,}$scheme://127.0.0.1:$p"; done
}
start() {
  pids=()
  for p in "${ports[@]}"; do
    "${java[@]}" -Xmx256m -jar "$jar" serve --port "$p" --data "$dir/data-$p" --cluster "$urls" \
      --self "$scheme://127.0.0.1:$p" --io-threads "$share" "${serve_args[@]}" ${SERVE_ARGS:-} >"$dir/node-$mode-$p.log" 2>&1 &
    pids+=($!)
  done
  for p in "${ports[@]}"; do wait_ready "$scheme://127.0.0.1:$p"; done
}
stop() { cleanup; pids=(); rm -rf "$dir"/data-*; }
B() { "${java[@]}" -Djavax.net.ssl.trustStore="$dir/ca.p12" -Djavax.net.ssl.trustStorePassword=changeit ${GEN_JAVA_OPTS:-} \
        -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
line() { percentiles | sed 's/, max.*//'; }
# sweep_line ARGS...: the highest constant rate with p99 under 10 ms (dht bench sweep: steps of STEP,
# default 5s, each after 2 s unmeasured, from START_RATE, default 4,000/s, at most MAX_STEPS, default 8),
# with every step's rate and p99.
sweep_line() {
  B sweep "$@" --start-rate "${START_RATE:-4000}" --max-steps "${MAX_STEPS:-8}" --step-duration "${STEP:-5s}" \
    --precision "${PRECISION:-0.05}" | awk '/highest stable rate/ {h=$4" req/s"}
      $NF == "pass" || $NF == "FAIL" {s=s (s ? ", " : "") $1 " p99 " $4 " " $NF} END {print h " (steps: " s ")"}'
}
# measured OP RATE SECS WARMUP ARGS...: one generator run (ARGS, then RATE, SECS s after WARMUP s;
# RATE 0: closed loop), its line, then the CPU per request over SECS - 6 s (at most 10) of wall
# time from its first measured second: the CPU of the nodes and of the generator (/proc
# utime+stime) over the client requests the nodes answered meanwhile (their /metrics).
measured() {
  local op="$1" r="$2" d="$3" w="$4" out="$dir/run.out" err="$dir/run.err" gen l rc=0 n0 g0 r0 n1 g1 r1 win; shift 4
  rm -f "$out" "$err" # tail must not read the last run's progress lines
  win=$((d - 6 < 10 ? d - 6 : 10)) # the snapshots' curls take seconds on a loaded machine: end well before the run
  "${java[@]}" -Djavax.net.ssl.trustStore="$dir/ca.p12" -Djavax.net.ssl.trustStorePassword=changeit ${GEN_JAVA_OPTS:-} \
    -cp "$jar" dht.bench.BenchMain "$@" -R "$r" -d "${d}s" --warmup "${w}s" ${GEN_ARGS:-} >"$out" 2>"$err" &
  gen=$!
  while IFS= read -r l; do [[ "$l" == *" measure "* ]] && break; done < <(tail -n +1 -F --pid="$gen" "$err" 2>/dev/null)
  if kill -0 "$gen" 2>/dev/null; then
    n0=$(ticks "${pids[@]}"); g0=$(ticks "$gen"); r0=$(served "$op" "${ports[@]}")
    sleep "$win"
    n1=$(ticks "${pids[@]}"); g1=$(ticks "$gen" 2>/dev/null || echo x); r1=$(served "$op" "${ports[@]}")
  fi
  wait "$gen" || rc=$?
  if [ -z "${g1:-}" ] || [ "$g1" = x ] || [ "$r1" -le "$r0" ]; then echo "$(line <"$out"), CPU per request not measured (generator exit $rc; its CPU ${g0:-?} -> ${g1:-?} ticks, requests ${r0:-?} -> ${r1:-?})"; return; fi
  awk -v n="$((n1 - n0))" -v g="$((g1 - g0))" -v t="$(getconf CLK_TCK)" -v ops="$((r1 - r0))" -v l="$(line <"$out")" \
    'BEGIN {printf "%s, CPU per request over %d requests: nodes %.0f us, generator %.0f us, total %.0f us\n", l, ops, 1e6*n/t/ops, 1e6*g/t/ops, 1e6*(n+g)/t/ops}'
}
export CURL_CA_BUNDLE="$dir/ca.pem" # wait_ready and wait_quiet ask /v0/status with curl

machine_line
echo "logs: $dir; build: $jar"
echo "date: $(date -u +%FT%TZ); ${warmup}s warm-up, ${secs}s closed loop, $rate req/s for 15 s, $keys keys for GET, 64 connections"
for round in $(seq 1 "$rounds"); do
  for mode in "${modes[@]}"; do
    mode_setup "$mode"
    start
    if [ "$scheme" = https ]; then
      echo "round $round $mode: $(grep -ho 'TLS to clients and peers by .*' "$dir/node-$mode-${ports[0]}.log" | head -1)"
    fi
    put=(--url "$urls" -w put --distribution sequential --keys 2000000000 -c 64 -t 2 "${bench_args[@]}")
    fresh_keys; B "${put[@]}" --start "$start_at" -R 0 -d "${warmup}s" --warmup 0s >/dev/null || true
    if [ "${FLAME:-0}" = 1 ]; then
      (sleep 3; curl -fs -o "$dir/flame-$round-$mode.html" \
        "$scheme://127.0.0.1:${ports[0]}/admin/profile?event=cpu&duration=$((secs > 5 ? secs - 4 : 1))s") &
    fi
    [ "${CLOSED:-1}" = 0 ] || { fresh_keys; echo "round $round $mode PUT closed: $(measured put 0 "$secs" 2 "${put[@]}" --start "$start_at")"; }
    if [ "${FLAME:-0}" = 1 ]; then
      wait_flame=0; while [ ! -s "$dir/flame-$round-$mode.html" ] && [ $wait_flame -lt 30 ]; do sleep 1; wait_flame=$((wait_flame + 1)); done
      B flame "$dir/flame-$round-$mode.html" | head -40 | sed "s/^/round $round $mode flame: /"
    fi
    # the flushes and compactions of the closed-loop writes (more in a faster mode) end before it
    wait_quiet ${urls//,/ } >/dev/null
    [ "${FIXED:-1}" = 0 ] || { fresh_keys; echo "round $round $mode PUT at $rate: $(measured put "$rate" 15 5 "${put[@]}" --start "$start_at")"; }
    [ "${SWEEP:-0}" = 0 ] || { fresh_keys; echo "round $round $mode PUT sweep p99<10ms: $(sweep_line "${put[@]}" --start "$start_at")"; }
    B fill --url "$urls" --count "$keys" --value-size 100 -c 64 "${bench_args[@]}" >/dev/null || echo "round $round $mode: the fill failed"
    wait_quiet ${urls//,/ } >/dev/null
    get=(--url "$urls" -w get --keys "$keys" -c 64 -t 2 "${bench_args[@]}")
    B "${get[@]}" -R 0 -d "$((warmup / 2))s" --warmup 0s >/dev/null || true
    [ "${CLOSED:-1}" = 0 ] || echo "round $round $mode GET closed: $(measured get 0 "$secs" 2 "${get[@]}")"
    [ "${FIXED:-1}" = 0 ] || echo "round $round $mode GET at $rate: $(measured get "$rate" 15 5 "${get[@]}")"
    [ "${SWEEP:-0}" = 0 ] || echo "round $round $mode GET sweep p99<10ms: $(sweep_line "${get[@]}")"
    echo "round $round $mode: load $(cut -d' ' -f1-3 /proc/loadavg)"
    stop
  done
done
