#!/usr/bin/env bash
# The cost of the cluster secret: cluster-vs-node.sh's 3-node cluster, PUT and GET at 64
# connections, closed loop, once without and once with --cluster-secret-file, alternating for
# ROUNDS rounds (default 3), so that a noisy machine weighs on both alike. Extra environment
# (WARMUP, REWARM, CONNS, ...) passes through to cluster-vs-node.sh.
# Usage: bench/scripts/cluster-secret-ab.sh [SECONDS] [KEYS]
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)"
secret="$(mktemp /tmp/dht-secret.XXXXXX)"
trap 'rm -f "$secret"' EXIT
chmod 600 "$secret"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$secret"
for round in $(seq 1 "${ROUNDS:-3}"); do
  for mode in none secret; do
    args=""; [ "$mode" = secret ] && args="--cluster-secret-file $secret"
    SETUPS=cluster SWEEP=0 ROUNDS=1 SERVE_ARGS="$args" "$root/bench/scripts/cluster-vs-node.sh" "$@" \
      | sed -n "s/^round 1 /round $round $mode /p" || echo "round $round $mode: failed (see cluster-vs-node.sh)"
  done
done
