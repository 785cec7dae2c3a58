#!/usr/bin/env python3
# Per 100 ms window: CPU and run-queue wait (ms, summed over each group's threads) of the node's
# event loops (io), storage threads (stor), the generator (gen), compaction, flush and JIT threads,
# and the machine's busy time, beside the worst latency of the requests the bench timeline intended
# in that window; the 12 worst windows (all with a third argument), then medians over all.
# Usage: bench/scripts/sched-windows.py SCHED.txt DIR/timeline.txt [all]
import sys, collections, datetime
from runlog import timeline
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t, pid, tid, comm, cpu, wait, sl = line.split()
    rows[tid].append((int(t), comm, int(cpu), int(wait), int(sl)))
def group(c):
    if c.startswith('http-io'): return 'io'
    if c.startswith('storage-'): return 'stor'
    if c.startswith('dht-storage-com'): return 'comp'
    if c.startswith('dht-storage-flu'): return 'flush'
    if c.startswith('dht-storage-syn'): return 'sync'
    if c.startswith('C1') or c.startswith('C2'): return 'jit'
    if c == 'machine': return 'machine'
    return 'gen'
W = 100_000_000
acc = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0, 0]))
for tid, r in rows.items():
    for (t0, c, cpu0, w0, s0), (t1, _, cpu1, w1, s1) in zip(r, r[1:]):
        b = t1 // W
        a = acc[b][group(c)]
        a[0] += cpu1 - cpu0; a[1] += w1 - w0; a[2] += s1 - s0
tl = {int(t.timestamp() * 1e9) // W: worst for t, worst in timeline(sys.argv[2])}
G = ['machine', 'io', 'stor', 'gen', 'comp', 'flush', 'jit']
print('window        worst_ms | ' + ' '.join(f'{g:>5}cpu {g:>5}wait' for g in G) + ' | io_wait/slice_us')
keys = sorted(acc)
sel = sorted(keys, key=lambda b: -tl.get(b, 0))[:12] if len(sys.argv) < 4 else keys
for b in sorted(sel):
    a = acc[b]
    ts = datetime.datetime.fromtimestamp(b * W / 1e9, datetime.timezone.utc).strftime('%H:%M:%S.%f')[:10]
    io = a['io']; per = io[1] / max(io[2], 1) / 1e3
    print(f'{ts} {tl.get(b, float("nan")):8.1f} | ' + ' '.join(f'{a[g][0]/1e6:8.1f} {a[g][1]/1e6:9.1f}' for g in G) + f' | {per:6.1f}')
# medians over all windows
import statistics
print('median all   ', ' '.join(f'{g}: cpu {statistics.median([acc[b][g][0]/1e6 for b in keys]):.1f} wait {statistics.median([acc[b][g][1]/1e6 for b in keys]):.1f}' for g in G))
