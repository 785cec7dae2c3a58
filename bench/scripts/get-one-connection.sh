#!/usr/bin/env bash
# Issue #3's 1-connection GET target in isolation: one node -Xmx128m, 1,000,000 keys of 100 bytes
# filled, then GET at 15,000 req/s over 1 connection for 10 s, twice right after the fill and three
# times once no flush or compaction is pending (storage figures from /v0/status in between).
# Usage: bench/scripts/get-one-connection.sh      (port 9555; about 3 minutes)
set -u
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
jar=$root/cli/target/dht.jar
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
dir=$(mktemp -d /tmp/exp-get1.XXXX)
bench() { "${java[@]}" -cp "$jar" dht.bench.BenchMain "$@" 2>/dev/null; }
line() { bench "$@" | awk '/^ +50\.000%/ {p50=$2} /^ +99\.000%/ {p99=$2} /^ +99\.900%/ {p999=$2} /^Requests\/sec/ {rps=$2} END {printf "%s req/s, p50 %s, p99 %s, p99.9 %s", rps, p50, p99, p999}'; }
url=http://127.0.0.1:9555
machine_line; date -u +%FT%TZ
"${java[@]}" -Xmx128m -jar "$jar" serve --port 9555 --data "$dir/d" > "$dir/node.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$dir"' EXIT
wait_ready "$url"
bench fill --url "$url" --count 1000000 --value-size 100 -c 64 | tail -n 1
st() { curl -s "$url/v0/status" | grep -o '"storage":{[^}]*}'; }
echo "after fill: $(st)"
for i in 1 2; do echo "right after fill, run $i: $(line --url "$url" -w get --keys 1000000 -c 1 -t 1 -R 15000 -d 10s --warmup 3s)"; echo "  $(st)"; done
for i in $(seq 1 120); do st | grep -q '"pendingFlushes":0,"pendingCompactions":0' && break; sleep 1; done
echo "settled after ~${i}s more: $(st)"
for i in 1 2 3; do echo "settled, run $i: $(line --url "$url" -w get --keys 1000000 -c 1 -t 1 -R 15000 -d 10s --warmup 3s)"; done
grep -i -E 'compact|flush' "$dir/node.log" | tail -5
