#!/usr/bin/env python3
"""CPU time per thread group of running processes, between two snapshots (used by thread-cpu.sh).

  thread-cpu.py snap PID...                 > snapshot.json   per-thread CPU ticks from /proc
  thread-cpu.py diff A.json B.json OPS [PID=name...]          CPU seconds and microseconds per
                                                              request, by thread group and process

A thread group is the thread's name without its trailing number (storage-17 -> storage), so
event loops, storage threads, flush, compaction, JIT compiler and GC threads each get one line.
"""
import collections
import json
import os
import re
import sys

TICKS = os.sysconf("SC_CLK_TCK")


def snap(pids):
    out = {}
    for pid in pids:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    s = f.read()
            except OSError:
                continue  # the thread ended between listdir and open
            comm = s[s.index("(") + 1:s.rindex(")")]
            fields = s[s.rindex(")") + 2:].split()
            out[f"{pid}/{tid}"] = [comm, int(fields[11]) + int(fields[12])]  # utime + stime
    return out


def group(comm):
    return re.sub(r"[-#_ ]?\d+$", "", comm)


def diff(a, b, ops, names):
    by_group = collections.Counter()
    by_process = collections.Counter()
    for key, (comm, ticks) in b.items():
        d = ticks - a.get(key, [comm, 0])[1]
        pid = key.split("/")[0]
        by_group[group(comm)] += d
        by_process[names.get(pid, pid)] += d
    total = sum(by_group.values())
    print(f"total CPU {total / TICKS:.2f} s, {total * 1e6 / TICKS / ops:.1f} us per request over {ops:.0f} requests")
    for g, t in by_group.most_common():
        if t:
            print(f"  {g:24s} {t / TICKS:7.2f} s {t * 1e6 / TICKS / ops:7.1f} us/request {100 * t / total:5.1f}%")
    for p, t in by_process.most_common():
        print(f"  process {p:16s} {t / TICKS:7.2f} s {t * 1e6 / TICKS / ops:7.1f} us/request")


if __name__ == "__main__":
    if sys.argv[1] == "snap":
        json.dump(snap(sys.argv[2:]), sys.stdout)
    else:
        with open(sys.argv[2]) as fa, open(sys.argv[3]) as fb:
            names = dict(x.split("=", 1) for x in sys.argv[5:])
            diff(json.load(fa), json.load(fb), float(sys.argv[4]), names)
