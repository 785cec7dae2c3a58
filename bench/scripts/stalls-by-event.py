#!/usr/bin/env python3
# Where a run's slow requests fall: from `dht bench --out DIR`'s DIR/timeline.txt (the worst latency
# of the requests intended in each 100 ms) and the node's log (its "flushing"/"flushed" and
# "compacting"/"compacted" lines), prints the worst latency among the requests intended during each
# compaction and each flush of the measured window, and the worst elsewhere (200 ms after each
# event excluded). The timeline is in UTC, the node log in the local time of the machine (no date):
# run this on the machine, and the day, the node's, that the window began on (a run across midnight
# is not handled). Usage: bench/scripts/stalls-by-event.py DIR/timeline.txt NODE.log
import sys, datetime
from runlog import timeline, storage_events
tl, logf = sys.argv[1], sys.argv[2]
slots = timeline(tl)
if not slots: print("no timeline"); sys.exit()
t0, t1 = slots[0][0], slots[-1][0] + datetime.timedelta(milliseconds=100)
ev = storage_events(logf, slots[0][0].astimezone().date())  # (kind, start, end); the node's local date
out = {'flush': [], 'compaction': []}
for kind, s, e in ev:
    if e < t0 or s > t1: continue
    w = max([v for (t, v) in slots if t + datetime.timedelta(milliseconds=100) > s and t <= e] or [0])
    out[kind].append(w)
quiet = [v for (t, v) in slots if not any(t + datetime.timedelta(milliseconds=100) > s and t <= e + datetime.timedelta(milliseconds=200) for _, s, e in ev)]
quiet.sort()
print("worst during compactions %s ms; during flushes %s ms; elsewhere worst %.1f ms" % (
    [round(x,1) for x in out['compaction']], [round(x,1) for x in out['flush']], quiet[-1] if quiet else 0))
