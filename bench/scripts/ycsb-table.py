#!/usr/bin/env python3
"""Prints the results of bench/scripts/ycsb.sh (its OUT directory) as one Markdown table per
workload: per setup and operation, the run's throughput, the operation's count, and its
p50/p99/p99.9 latency from the intended start, plus failed operations. Usage: ycsb-table.py OUT"""
import os
import re
import sys

SETUP_ORDER = ["node", "cluster", "redis"]
WORKLOADS = {"a": "A: 50% read, 50% update", "b": "B: 95% read, 5% update", "c": "C: 100% read",
             "d": "D: 95% read latest, 5% insert", "e": "E: 95% scan (up to 100), 5% insert",
             "f": "F: 50% read, 50% read-modify-write"}


def parse(path):
    """{section: {metric: value}} from YCSB's text exporter ("[SECTION], metric, value")."""
    data = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^\[([^\]]+)\], ([^,]+), (.+)$", line.strip())
            if m:
                data.setdefault(m.group(1), {})[m.group(2)] = m.group(3)
    return data


def ms(us):
    return "%.2f" % (float(us) / 1000.0)


def main(out):
    setups = [s for s in SETUP_ORDER if os.path.isdir(os.path.join(out, s))]
    machine = os.path.join(out, "machine.txt")
    if os.path.exists(machine):
        print("```\n" + open(machine).read().strip() + "\n```\n")
    for w, title in WORKLOADS.items():
        rows = []
        for s in setups:
            path = os.path.join(out, s, "workload%s.txt" % w)
            if not os.path.exists(path):
                continue
            data = parse(path)
            overall = data.get("OVERALL", {})
            tput = float(overall.get("Throughput(ops/sec)", "nan"))
            failed = sum(int(v.get("Operations", 0)) for k, v in data.items() if k.endswith("-FAILED"))
            # With measurement.interval=intended the sections carry the operations' own names.
            ops = [k for k in data if "50thPercentileLatency(us)" in data[k]
                   and k != "CLEANUP" and not k.endswith("-FAILED")]
            for op in sorted(ops):
                d = data[op]
                if int(d.get("Operations", 0)) == 0:
                    continue
                name = op[len("Intended-"):] if op.startswith("Intended-") else op
                rows.append("| %s | %s | %.0f | %s | %s | %s | %s | %d |" % (
                    s, name, tput, d.get("Operations"), ms(d.get("50thPercentileLatency(us)", "nan")),
                    ms(d.get("99thPercentileLatency(us)", "nan")), ms(d.get("99.9PercentileLatency(us)", "nan")),
                    failed))
        if not rows:
            continue
        print("### Workload " + title + "\n")
        print("| setup | operation | throughput (ops/s) | operations | p50 (ms) | p99 (ms) | p99.9 (ms) | failed |")
        print("|---|---|---|---|---|---|---|---|")
        print("\n".join(rows) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
