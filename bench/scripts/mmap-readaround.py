#!/usr/bin/env python3
"""What one touch of a cold page of a memory-mapped file makes the kernel read, with and without
madvise(MADV_RANDOM): the read-around behind the dht engine's cold-read stall (docs/benchmarks.md,
"The cost curve past the RAM"). Writes and deletes a 256 MiB file under DIR (default /tmp)."""
import mmap, os, random, sys
path = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "/tmp", "readaround.bin")
size = 256 << 20
with open(path, "wb") as f:
    f.write(os.urandom(1 << 20) * 256)
    f.flush(); os.fsync(f.fileno())
def read_bytes():
    for line in open("/proc/self/io"):
        if line.startswith("read_bytes"): return int(line.split()[1])
for advice in ("none", "random", "none", "random"):
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    m = mmap.mmap(fd, size, prot=mmap.PROT_READ)
    if advice == "random": m.madvise(mmap.MADV_RANDOM)
    r = random.Random(1)
    before = read_bytes()
    for _ in range(20):
        m[r.randrange(size)]
    print(f"{advice:7s} 20 touches of random pages: {(read_bytes() - before) / 20 / 1024:.0f} KiB read per touch")
    m.close(); os.close(fd)
os.remove(path)
