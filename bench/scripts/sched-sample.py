#!/usr/bin/env python3
# Run-queue waits of a node's and a generator's threads over time: every 20 ms, for every thread
# of the given processes (the JVM's compiler threads included, its GC and service threads not),
# the counters of /proc/PID/task/TID/schedstat (CPU time, time runnable but waiting for a CPU,
# slices), and the machine's busy time from /proc/stat as pseudo-thread "machine" (10 ms
# resolution). Lines: "t_unix_ns pid tid comm cpu_ns wait_ns slices". Read them beside a bench
# timeline with sched-windows.py.
# Usage: bench/scripts/sched-sample.py OUT SECONDS PID...
import sys, os, time
out, secs, pids = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
end = time.time() + secs
comms = {}
SKIP = ('GC', 'G1', 'VM', 'Monitor', 'Notif', 'Common', 'Signal', 'Service', 'Reference', 'Finalizer', 'Attach', 'HttpClient', 'process', 'Cleaner', 'java')
with open(out, 'w') as f:
    while time.time() < end:
        t = time.time_ns()
        for pid in pids:
            try: tids = os.listdir(f'/proc/{pid}/task')
            except FileNotFoundError: continue
            for tid in tids:
                try:
                    if tid not in comms:
                        with open(f'/proc/{pid}/task/{tid}/comm') as c: comms[tid] = c.read().strip().replace(' ', '_')
                    if comms[tid].startswith(SKIP): continue
                    with open(f'/proc/{pid}/task/{tid}/schedstat') as s: v = s.read().split()
                except OSError: continue
                f.write(f'{t} {pid} {tid} {comms[tid]} {v[0]} {v[1]} {v[2]}\n')
        with open('/proc/stat') as st:
            v = st.readline().split()[1:]
        busy = sum(int(x) for x in v[:8]) - int(v[3]) - int(v[4])
        f.write(f'{t} 0 0 machine {busy * 10_000_000} 0 0\n')
        time.sleep(0.02)
