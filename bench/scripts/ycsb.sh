#!/usr/bin/env bash
# YCSB's core workloads A-F against one dht node, a 3-node dht cluster (default 2/3 quorum) and
# Redis 7, each in turn on this machine, through the bindings of the ycsb module: the same YCSB
# client, workload files and settings for all three.
#   - Each setup starts fresh: its data under a temporary directory, loaded with RECORDS records
#     (YCSB -load, unthrottled), then WARMUP seconds of workload A at TARGET, unmeasured: fresh
#     JVMs sharing two cores take that long to compile their hot paths.
#   - Each workload then runs SECONDS at a constant TARGET ops/s (YCSB -target), latency measured
#     from each operation's intended start (measurement.interval=intended: no coordinated
#     omission), in HdrHistograms (text summary per run, and .hdr logs per operation).
#   - Workloads run in YCSB's recommended order a b c f d, then e, on the same data (d and e insert).
# dht nodes run as bench/scripts/cluster-vs-node.sh starts them (-Xmx256m, --sync periodic); Redis
# runs with its append-only file fsynced every second (REDIS_ARGS overrides), the durability
# closest to dht's periodic sync, and no RDB snapshots.
# Results go under OUT (default ycsb/target/ycsb-results/<UTC time>); the table printed at the end
# is OUT/table.md (bench/scripts/ycsb-table.py OUT prints it again).
# Environment: THREADS (YCSB client threads, default 32), SETUPS (default "node cluster redis"),
# WORKLOADS (default "a b c f d e"), WARMUP (default 30), REDIS_ARGS.
# Usage: bench/scripts/ycsb.sh [RECORDS] [SECONDS] [TARGET]     (defaults 10000, 30, 5000)
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
records="${1:-10000}"
secs="${2:-30}"
target="${3:-5000}"
threads="${THREADS:-32}"
setups=(${SETUPS:-node cluster redis})
workloads=(${WORKLOADS:-a b c f d e})
warmup="${WARMUP:-30}"
redis_args=(${REDIS_ARGS:---appendonly yes --appendfsync everysec --save ""})
out="${OUT:-$root/ycsb/target/ycsb-results/$(date -u +%Y%m%dT%H%M%SZ)}"
jar="$root/cli/target/dht.jar"
ycsb_jar="$root/ycsb/target/dht-ycsb.jar"
if [ ! -f "$jar" ] || [ ! -f "$ycsb_jar" ]; then
  (cd "$root" && ./mvnw -B -q -DskipTests -pl cli,ycsb -am package)
fi
if [[ " ${setups[*]} " == *" redis "* ]] && ! command -v redis-server >/dev/null; then
  echo "ycsb.sh: no redis-server on the PATH (Debian: apt-get install redis-server); or SETUPS=\"node cluster\"" >&2
  exit 1
fi
mkdir -p "$out"
dir="$(mktemp -d /tmp/dht-ycsb.XXXXXX)"
pids=()
cleanup() { kill_pids; }
trap 'cleanup; rm -rf "$dir"' EXIT

# ycsb PHASE-FLAG WORKLOAD OUTFILE ARGS...: one YCSB client run against the current setup.
ycsb() {
  local phase="$1" workload="$2" file="$3"; shift 3
  "${java[@]}" -Xmx512m -cp "$ycsb_jar" site.ycsb.Client "$phase" -db "$db" \
    -P "$root/ycsb/workloads/workload$workload" -p recordcount="$records" -threads "$threads" \
    "${db_props[@]}" "$@" >"$file" 2>"${file%.txt}.err"
}

{
  machine_line
  echo "java: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1)"
  echo "redis: $(redis-server --version 2>/dev/null || echo none)"
  echo "date: $(date -u +%FT%TZ)"
  echo "command: bench/scripts/ycsb.sh $records $secs $target (THREADS=$threads SETUPS=\"${setups[*]}\" WORKLOADS=\"${workloads[*]}\" WARMUP=$warmup)"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
} | tee "$out/machine.txt"

for setup in "${setups[@]}"; do
  mkdir -p "$out/$setup"
  case "$setup" in
    node|cluster)
      if [ "$setup" = node ]; then ports=(19301); else ports=(19311 19312 19313); fi
      start_nodes "$jar" "" "${ports[@]}"
      db=dht.ycsb.DhtBinding
      db_props=(-p "dht.nodes=$(node_urls "${ports[@]}")")
      ;;
    redis)
      port=19321
      redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" "${redis_args[@]}" >"$dir/redis.log" 2>&1 &
      pids=($!)
      for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
      db=dht.ycsb.RedisBinding
      db_props=(-p redis.host=127.0.0.1 -p "redis.port=$port")
      ;;
    *) echo "ycsb.sh: unknown setup $setup (node, cluster or redis)" >&2; exit 1 ;;
  esac
  echo "$setup: loading $records records at $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)"
  ycsb -load a "$out/$setup/load.txt"
  if [ "$warmup" -gt 0 ]; then
    ycsb -t a "$dir/warmup.txt" -p operationcount=$((target * warmup)) -p maxexecutiontime="$warmup" -target "$target"
  fi
  for w in "${workloads[@]}"; do
    echo "$setup: workload $w at $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >"$out/$setup/workload$w.load"
    ycsb -t "$w" "$out/$setup/workload$w.txt" -target "$target" \
      -p operationcount=$((target * secs)) -p maxexecutiontime="$secs" \
      -p measurementtype=hdrhistogram -p measurement.interval=intended \
      -p hdrhistogram.percentiles=50,99,99.9 \
      -p hdrhistogram.fileoutput=true -p hdrhistogram.output.path="$out/$setup/workload$w-"
    echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/$setup/workload$w.load"
  done
  cleanup
  pids=()
  rm -rf "${dir:?}"/data-* "$dir"/*.aof "$dir"/appendonlydir "$dir"/dump.rdb
done

python3 "$root/bench/scripts/ycsb-table.py" "$out" | tee "$out/table.md"
echo "results: $out"
