#!/usr/bin/env bash
# One point of the cost curve (docs/benchmarks.md, "The cost curve past the RAM"): loads KEYS
# 16-byte keys with 100-byte values into ENGINE (dht, dht-lz4, rocksdb, rocksdb-lz4), then
# measures cold-cache point reads at a constant rate, a scan, and write and space amplification.
# Appends one line to RESULTS (default /tmp/cost-curve/results.tsv) and deletes the database.
# Runs as root (it drops the page cache) under nice -n 5, the machine being shared.
# Usage: bench/scripts/cost-curve.sh ENGINE KEYS [DIR] [RESULTS] [READS_PER_S] [READ_SECONDS] [SCAN_SECONDS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
engine="${1:?engine: dht, dht-lz4, rocksdb or rocksdb-lz4}"
keys="${2:?keys, e.g. 100000000}"
dir="${3:-/work/cost-curve-db/$engine-$keys}"
results="${4:-/tmp/cost-curve/results.tsv}"
jar="${COST_CURVE_JAR:-$root/jmh/target/dht-jmh.jar}"
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -o -pl jmh -am package -DskipTests -P'!fuzz')
mkdir -p "$(dirname "$results")"
machine_line
echo "free disk: $(df -h --output=avail "$(dirname "$dir")" 2>/dev/null | tail -1 || df -h --output=avail / | tail -1)"
mkdir -p "$(dirname "$dir")"
exec nice -n 5 "${java[@]}" -Xmx4g -cp "$jar" dht.jmh.CostCurve \
  "$engine" "$keys" "$dir" "$results" "${@:5}"
