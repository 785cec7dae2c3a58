#!/usr/bin/env bash
# Clients that pipeline GETs of a 1 MiB value and never read the answers, against one node with
# -Xmx128m --io-threads 1 (docs/http-server.md, "The answers being built"). For each client count a
# fresh node stores the value, large-answers-probe.py runs, and one line says whether the node
# stayed alive, how often it logged an OutOfMemoryError, and how many connections it closed.
# Usage: bench/scripts/large-answers-probe.sh [SECONDS] [CLIENTS...]   (defaults 20 s; 3 24 48 96 192)
# JAR=path/to/dht.jar picks the build (default cli/target/dht.jar).
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
. "$root/bench/scripts/common.sh"
secs="${1:-20}"; shift || true
if [ $# -gt 0 ]; then counts=("$@"); else counts=(3 24 48 96 192); fi
jar="${JAR:-$root/cli/target/dht.jar}"
[ -f "$jar" ] || (cd "$root" && ./mvnw -B -q -DskipTests -pl cli -am package)
port=19100
machine_line
echo "date: $(date -u +%FT%TZ), jar $jar, ${secs}s per run"
for n in "${counts[@]}"; do
  d="$(mktemp -d /tmp/dht-large-answers.XXXXXX)"
  "${java[@]}" -Xmx128m -jar "$jar" serve --port "$port" --data "$d/data" --io-threads 1 >"$d/log" 2>&1 &
  pid=$!
  wait_ready "http://127.0.0.1:$port" || { kill "$pid"; exit 1; }
  head -c 1048576 /dev/zero | tr '\0' v >"$d/big"
  curl -fs -o /dev/null -X PUT --data-binary @"$d/big" "http://127.0.0.1:$port/v0/entity?id=big"
  timeout $((secs + 40)) python3 "$root/bench/scripts/large-answers-probe.py" "$port" "$n" "$secs" 2>&1 | tail -n 1 || true
  echo "  node alive: $(kill -0 "$pid" 2>/dev/null && echo yes || echo no); OutOfMemoryError lines: $(grep -c OutOfMemoryError "$d/log" || true); connections closed: $(grep -c 'closing connection' "$d/log" || true)"
  kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
  rm -rf "$d"
done
