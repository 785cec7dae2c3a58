#!/usr/bin/env python3
# The slowest 100 ms slots of a stall-causes.sh round, each with what overlapped it: a flush or
# compaction (node.log), a GC pause or other safepoint of the node or the generator (node-gc.log,
# gen-gc.log), late wake-ups of the sleeping probe (probe.txt). A slot's requests were intended in
# its 100 ms and answered within its worst latency after, so that is the span searched.
# The node log has local times without a date: run this in the node's time zone (a run across
# local midnight is not handled).
# Usage: bench/scripts/stall-causes.py DIR [N]   (N slowest slots, default 8)
import sys, os, re, datetime as dt
from runlog import utc, timeline, storage_events
d, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 8
ms = lambda x: dt.timedelta(milliseconds=x)

slots = timeline(f'{d}/out/timeline.txt')
if not slots: sys.exit('no timeline in ' + d)
t0, t1 = slots[0][0], slots[-1][0] + ms(100)

spans = [(s, e, kind) for kind, s, e in storage_events(f'{d}/node.log', t0.astimezone().date())]  # (start, end, description)
pauses = {}  # who -> [(start, end, ms, what)]
for who, fn in (('node', 'node-gc.log'), ('generator', 'gen-gc.log')):
    pauses[who] = []
    if not os.path.exists(f'{d}/{fn}'): continue
    for line in open(f'{d}/{fn}'):
        m = re.match(r'\[(\S+?)\] Safepoint "(\w+)".*Total: (\d+) ns', line)
        if not m: continue
        end, took = utc(m.group(1)), int(m.group(3)) / 1e6
        what = 'GC' if 'GC' in m.group(2) or 'Collect' in m.group(2) else m.group(2)
        pauses[who].append((end - ms(took), end, took, what))
        spans.append((end - ms(took), end, f'{who} {what} {took:.1f} ms'))
late = []
if os.path.exists(f'{d}/probe.txt'):
    for line in open(f'{d}/probe.txt'):
        t, x = line.split()
        late.append((utc(t) - ms(float(x) + 1), utc(t), float(x)))
        spans.append((late[-1][0], late[-1][1], f'probe {float(x):.1f} ms late'))

def near(s, w):
    a, b = s, s + ms(100 + w)
    return [desc for (x, y, desc) in sorted(spans) if y > a and x < b]

worst = sorted(slots, key=lambda s: -s[1])[:n]
for s, w in worst:
    found = near(s, w)
    print(f"  {s.strftime('%H:%M:%S.%f')[:10]} worst {w:5.1f} ms: {', '.join(found) if found else 'nothing found'}")
inw = lambda xs: [x for x in xs if x[1] > t0 and x[0] < t1]
ev = inw([x for x in spans if x[2] in ('flush', 'compaction')])
print(f"  in the window: {sum(1 for x in ev if x[2] == 'flush')} flushes, {sum(1 for x in ev if x[2] == 'compaction')} compactions")
for who in pauses:
    p = inw(pauses[who])
    print(f"  {who}: {len(p)} safepoints in the window, longest {max([x[2] for x in p] or [0]):.1f} ms")
lw = inw(late)
print(f"  probe: {len(lw)} wake-ups over 2 ms late in the window, latest {max([x[2] for x in lw] or [0]):.1f} ms; "
      f"slowest slots with the probe late: {sum(1 for s, w in worst if any('probe' in x for x in near(s, w)))} of {len(worst)}")
