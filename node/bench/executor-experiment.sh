#!/usr/bin/env bash
# The storage-executor experiment of docs/http-server.md: the same node, the same load, storage work
# on a bounded platform-thread pool vs on virtual threads (concurrency bounded by --max-in-flight).
# Runs alternate A/B so that the shared machine's noise hits both alike.
# Usage: CONFIGS="pool:4 pool:64 virtual" node/bench/executor-experiment.sh [rounds] [seconds]
# (needs wrk; builds nothing: run `mvn -o -q package -DskipTests` first)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
rounds=${1:-2}
secs=${2:-15}
port=${PORT:-18950}
out=${OUT:-/tmp/executor-experiment}
mkdir -p "$out"
jar="$root/cli/target/dht.jar"
java=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java

configs=${CONFIGS:-"pool:4 virtual"}

run_node() { # executor[:threads] sync datadir
  local kind=${1%%:*} threads=${1#*:}
  [ "$threads" = "$1" ] && threads=4
  "$java" --enable-native-access=ALL-UNNAMED -Xmx512m -Ddht.storage.executor="$kind" \
      -Ddht.storage.threads="$threads" -jar "$jar" serve \
      --port "$port" --data "$3" --sync "$2" >"$out/node-$1-$2.log" 2>&1 &
  node_pid=$!
  for _ in $(seq 100); do curl -fs "http://localhost:$port/v0/status" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "node did not start" >&2; return 1
}
stop_node() { kill -TERM "$node_pid"; wait "$node_pid" || true; }

bench() { # label script keys
  local label=$1 script=$2 keys=$3
  KEYS=$keys DISTRIBUTION=${DIST:-uniform} VALUE_SIZE=100 wrk -t1 -c64 -d"${secs}s" --latency \
      -s "$root/bench/wrk2/$script" "http://localhost:$port" >"$out/$label.txt"
  local rps p50 p99 non2xx
  rps=$(awk '/Requests\/sec/ {print $2}' "$out/$label.txt")
  p50=$(awk '$1=="50%" {print $2}' "$out/$label.txt")
  p99=$(awk '$1=="99%" {print $2}' "$out/$label.txt")
  non2xx=$(awk '/Non-2xx/ {print $NF}' "$out/$label.txt")
  echo "$label rps=$rps p50=$p50 p99=$p99 non2xx=${non2xx:-0}" | tee -a "$out/summary.txt"
}

for r in $(seq "$rounds"); do
  for ex in $configs; do
    for sync in periodic every-write; do
      dir=$(mktemp -d /tmp/exexp-XXXX)
      run_node "$ex" "$sync" "$dir"
      DIST=sequential bench "r$r-$ex-$sync-put" put.lua 100000000
      if [ "$sync" = periodic ]; then
        # GET over the keys the PUT run wrote (sequential from 0)
        n=$(awk '/requests in/ {print $1}' "$out/r$r-$ex-$sync-put.txt")
        DIST=uniform bench "r$r-$ex-$sync-get" get.lua "$n"
      fi
      stop_node
      rm -rf "$dir"
    done
  done
done
