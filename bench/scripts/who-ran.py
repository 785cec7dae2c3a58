#!/usr/bin/env python3
"""Who had the CPU when a request was slow.

  who-ran.py sample OUT SECONDS [PATTERN]   every 20 ms, each thread's CPU time and run-queue wait
                                            (/proc/PID/task/TID/schedstat) of the processes whose
                                            command line contains PATTERN (default "dht"), to OUT
  who-ran.py explain OUT TIMELINE [N]       for the N slowest 100 ms slots of a `dht bench --out`
                                            timeline.txt: the threads that ran most, and those that
                                            waited longest for a CPU, from 100 ms before the slot to
                                            200 ms after it

A request is slow either because its thread worked or because it waited; on two shared cores it is
mostly the waiting, and the question is for whom. Linux only; reads nothing but /proc.
"""
import os
import sys
import time

import runlog


def processes(pattern):
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and pid != str(os.getpid()):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if pattern.encode() in f.read():
                        found.append(pid)
            except OSError:
                pass
    return found


def sample(out_path, seconds, pattern="dht"):
    end = time.time() + seconds
    pids, listed = processes(pattern), time.time()
    with open(out_path, "w") as out:
        while time.time() < end:
            if time.time() - listed > 2:  # new processes (a generator started later)
                pids, listed = processes(pattern), time.time()
            items = []
            for pid in pids:
                try:
                    tids = os.listdir(f"/proc/{pid}/task")
                except OSError:
                    continue
                for tid in tids:
                    try:
                        with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                            cpu, wait = f.read().split()[:2]
                        with open(f"/proc/{pid}/task/{tid}/comm") as f:
                            name = f.read().strip().replace(" ", "_").replace(":", "_")
                    except OSError:
                        continue
                    items.append(f"{pid}:{tid}:{name}:{cpu}:{wait}")
            out.write(f"{time.time() * 1000:.1f} " + " ".join(items) + "\n")
            time.sleep(0.02)


def explain(samples_path, timeline_path, n=5):
    samples = []
    with open(samples_path) as f:
        for line in f:
            fields = line.split()
            threads = {}
            for item in fields[1:]:
                if item.count(":") != 4:
                    continue
                pid, tid, name, cpu, wait = item.split(":")
                threads[(pid, tid, name)] = (int(cpu), int(wait))
            samples.append((float(fields[0]), threads))
    slots = [(worst, t.timestamp() * 1000, t.isoformat(timespec="milliseconds").replace("+00:00", "Z"))
             for t, worst in runlog.timeline(timeline_path)]
    seen = {}  # thread -> (time, cpu, wait) when first and last sampled
    for when, threads in samples:
        for key, (cpu, wait) in threads.items():
            seen[key] = (seen.get(key, ((when, cpu, wait),))[0], (when, cpu, wait))

    def usual(key, span):
        """(ran, waited) in a window of span ms at this thread's average over its sampled life."""
        (t0, cpu0, wait0), (t1, cpu1, wait1) = seen[key]
        if t1 <= t0:
            return 0.0, 0.0
        return (cpu1 - cpu0) / 1e6 * span / (t1 - t0), (wait1 - wait0) / 1e6 * span / (t1 - t0)

    for worst, t, at in sorted(slots, reverse=True)[:n]:
        before = [s for s in samples if s[0] <= t - 100]
        after = [s for s in samples if s[0] >= t + 200]
        if not before or not after:
            continue
        a, b = before[-1], after[0]
        rows = []
        for key, (cpu, wait) in b[1].items():
            cpu0, wait0 = a[1].get(key, (0, 0))
            rows.append(((cpu - cpu0) / 1e6, (wait - wait0) / 1e6, key))
        span = b[0] - a[0]
        print(f"slot {at}: worst {worst} ms; in the {span:.0f} ms around it the sampled threads ran "
              f"{sum(r[0] for r in rows):.0f} ms of the {os.cpu_count() * span:.0f} ms of CPU there was")
        print("     ran   waited  (usual: ran  waited)  thread")
        top = sorted(rows, reverse=True)[:6]
        top += [r for r in sorted(rows, key=lambda r: -r[1])[:3] if r not in top]
        for cpu, wait, key in top:
            ucpu, uwait = usual(key, span)
            print(f"   {cpu:5.1f} ms {wait:5.1f} ms  ({ucpu:5.1f}  {uwait:5.1f})      {key[0]} {key[2]}")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "sample":
        sample(sys.argv[2], float(sys.argv[3]), *sys.argv[4:5])
    elif len(sys.argv) >= 4 and sys.argv[1] == "explain":
        explain(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 5)
    else:
        sys.exit(__doc__)
