#!/usr/bin/env python3
"""Prints the cost-curve results file (CostCurve's tab-separated lines) as a markdown table,
sorted by size then engine. Usage: cost-curve-table.py RESULTS"""
import csv
import sys

ORDER = {"dht": 0, "dht-lz4": 1, "rocksdb": 2, "rocksdb-lz4": 3}


def main(path):
    with open(path) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    rows.sort(key=lambda r: (int(r["keys"]), ORDER.get(r["engine"], 9), r["time"]))
    print("| keys | engine | fill keys/s (put only) | fill CPU µs/key | write amp | disk GB | space amp | files after settling"
          " | cold reads/s | p50 ms | p99 ms | p99.9 ms | disk KB read per get | cold scan MB/s | load avg |")
    print("|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        keys = int(r["keys"])
        size = f"{keys // 1_000_000}M" if keys >= 1_000_000 else str(keys)
        reads_per_s = int(r["reads"]) / float(r["read_s"])
        print(f"| {size} | {r['engine']} | {float(r['fill_keys_per_s']):,.0f} ({float(r['put_keys_per_s']):,.0f})"
              f" | {float(r['fill_cpu_us_per_key']):.1f} | {float(r['write_amp']):.2f} | {int(r['disk_bytes']) / 1e9:.2f} | {float(r['space_amp']):.2f}"
              f" | {r['shape']} | {reads_per_s:,.0f} | {float(r['p50_ms']):.2f} | {float(r['p99_ms']):.2f}"
              f" | {float(r['p999_ms']):.2f} | {float(r['disk_read_bytes_per_get']) / 1e3:.1f}"
              f" | {float(r['scan_mb_per_s']):.0f} | {r['load']} |")


if __name__ == "__main__":
    main(sys.argv[1])
