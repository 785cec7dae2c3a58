#!/usr/bin/env python3
"""What a CPU flame graph says, as text: the share of samples by where the CPU went, and the top
self frames. Reads the HTML flame graphs that `dht bench --profile cpu` and `bin/dht bench report`
save (async-profiler's format: a prefix-compressed frame pool and one f/u/n call per frame).

Usage: bench/scripts/flame-top.py FLAMEGRAPH.html [TOP=25] [--callers FRAME [--depth 3]]

Categories, first match wins, judged on each sample's whole stack:
  JIT compiler      a compiler thread (CompileBroker)
  GC                a collector thread (G1/ZGC/Serial workers, VM thread)
  waiting/waking    kernel time in the scheduler or futexes: a thread going to sleep in epoll_wait
                    or park, or waking another (the cost of handing work between threads)
  network (kernel)  any other kernel time under a socket or epoll call
  other kernel      any other kernel time (page faults, file writes, timers)
  then, for samples in user space, the innermost frame of ours or Netty's (JDK code they call
  counts for them): storage engine (dht/storage), HTTP codec (io/netty/handler/codec), Netty
  (io/netty), node (dht/node); JDK (java/, jdk/, sun/) only when none of those is on the stack.
"""
import collections
import re
import sys

KERNEL = 5  # async-profiler's frame type for kernel frames (key & 7)
SCHED = re.compile(r"finish_task_switch|_raw_spin_unlock|schedule|futex|try_to_wake_up|ttwu|"
                   r"__x64_sys_futex|pick_next|dequeue_task|enqueue_task|update_curr|select_task_rq")
NET = re.compile(r"tcp_|sock_|ip_|skb|epoll|ep_|net_|inet_|__sys_send|__sys_recv|eventfd|_copy_to_iter|"
                 r"_copy_from_iter|loopback|dev_|napi|bbr_")


def load(path):
    """Frames in drawing order: (level, width, type, title)."""
    s = open(path, encoding="utf-8").read()
    m = re.search(r"const cpool = \[(.*?)\];\s*\n", s, re.S)
    if not m:
        sys.exit(f"{path}: no async-profiler frame pool found (not a CPU flame graph in HTML?)")
    pool = []
    for i, c in enumerate(re.findall(r"'((?:[^'\\]|\\.)*)'", m.group(1))):
        c = c.replace("\\'", "'").replace("\\\\", "\\")
        pool.append(c if i == 0 else pool[-1][:ord(c[0]) - 32] + c[1:])
    frames, level0, width0 = [], 0, 0
    for call, args in re.findall(r"\n([fun])\(([^)]*)\)", s[s.index("unpack(cpool);"):]):
        a = [int(x) if x.strip() else 0 for x in args.split(",")]
        if call == "f":
            key, level, width = a[0], a[1], a[3] if len(a) > 3 else 0
        else:  # u: first child of the previous frame; n: next sibling of it
            key, level, width = a[0], level0 + (1 if call == "u" else 0), a[1] if len(a) > 1 else 0
        level0, width0 = level, width or width0
        frames.append((level, width0, key & 7, pool[key >> 3]))
    return frames


def category(stack):
    titles = [t for _, _, _, t in stack]
    joined = " ".join(titles)
    if "CompileBroker" in joined:
        return "JIT compiler"
    if re.search(r"G1|ZGC|ZDriver|GangWorker|WorkerThread::run|VMThread|SerialHeap|ConcurrentGCThread", joined):
        return "GC"
    leaf = stack[-1]
    if leaf[2] == KERNEL:
        kernel = [t for _, _, kind, t in stack if kind == KERNEL]
        if SCHED.search(leaf[3]):
            return "waiting/waking (kernel scheduler, futex)"
        if any(NET.search(t) for t in kernel):
            return "network (kernel)"
        return "other kernel"
    # The innermost frame of ours or Netty's: JDK code they call (a MemorySegment compare, a
    # queue) counts for them; JDK alone only when neither is on the stack.
    owners = (("dht/storage", "storage engine"), ("io/netty/handler/codec", "HTTP codec (Netty)"),
              ("io/netty", "Netty (channels, event loops, buffers)"), ("dht/node", "node (routes, coordination)"),
              ("dht/", "other dht"))
    for t in reversed(titles):
        for prefix, name in owners:
            if t.startswith(prefix):
                return name
    if any(t.startswith(("java/", "jdk/", "sun/")) for t in titles):
        return "JDK"
    return "other (JVM runtime, native)"


def main():
    args = [a for a in sys.argv[1:]]
    callers, depth = None, 3
    if "--depth" in args:
        i = args.index("--depth")
        depth = int(args[i + 1])
        del args[i:i + 2]
    if "--callers" in args:
        i = args.index("--callers")
        callers = args[i + 1]
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    frames = load(args[0])
    top = int(args[1]) if len(args) > 1 else 25
    total = frames[0][1]
    cats, selfw, paths = collections.Counter(), collections.Counter(), collections.Counter()
    stack = []
    # A frame's self samples are its width minus its children's: computed when the next frame at
    # its level or above closes it.
    child = []
    def close(entry):
        (lv, w, kind, t), children, path = entry
        own = w - children
        if own > 0:
            selfw[t] += own
            cats[category(path)] += own
            if callers and t == callers:
                java = [f[3] for f in path if "/" in f[3] and not f[3].startswith("/")]
                paths[" <- ".join(reversed(java[-depth:])) or "(no Java frame)"] += own
    for f in frames:
        while stack and stack[-1][0][0] >= f[0]:
            close(stack.pop())
        if stack:
            stack[-1][1] += f[1]
        path = (stack[-1][2] if stack else []) + [f]
        stack.append([f, 0, path])
    while stack:
        close(stack.pop())
    print(f"{args[0]}: {total:,} samples")
    print("\nwhere the CPU went:")
    for name, w in cats.most_common():
        print(f"  {100 * w / total:5.1f}%  {name}")
    print(f"\ntop {top} self frames:")
    for t, w in selfw.most_common(top):
        print(f"  {100 * w / total:5.1f}%  {t[:140]}")
    if callers:
        print(f"\n{callers}: innermost Java frames above it")
        for k, w in paths.most_common(15):
            print(f"  {100 * w / total:5.1f}%  {k}")


if __name__ == "__main__":
    main()
