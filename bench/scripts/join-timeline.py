#!/usr/bin/env python3
"""Splits each move window of a join-costs.sh run (DIR/round-N-move/timeline.txt, the worst latency
of each 100 ms) at SPLIT seconds (default 5): the worst before it, which holds the membership
change (about 1.2 s into the window), and after it, while the stream runs, the median and 90th
percentile of the 100 ms worsts, their maximum and how many passed 100 ms.

Usage: bench/scripts/join-timeline.py DIR [SPLIT]"""
import glob
import os
import statistics
import sys

if len(sys.argv) < 2:
    sys.exit(__doc__)
split = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
rounds = glob.glob(os.path.join(sys.argv[1], "round-*-move"))
for r in sorted(rounds, key=lambda d: int(os.path.basename(d).split("-")[1])):
    timeline = os.path.join(r, "timeline.txt")
    if not os.path.exists(timeline):
        print(f"{os.path.basename(r)}: no timeline.txt (the round did not finish)")
        continue
    rows = [line.split() for line in open(timeline) if not line.startswith("#")]
    slots = [(float(a[1]), float(a[2])) for a in rows]
    first = [w for s, w in slots if s < split]
    rest = sorted(w for s, w in slots if s >= split)
    if not first or not rest:
        print(f"{os.path.basename(r)}: window shorter than {split} s")
        continue
    print(f"{os.path.basename(r)}: first {split:g} s worst {max(first):.0f} ms; after: median of 100 ms worsts "
          f"{statistics.median(rest):.1f} ms, 90th {rest[int(0.9 * len(rest))]:.1f}, max {max(rest):.0f} ms, "
          f"slots over 100 ms {sum(1 for w in rest if w > 100)}")
