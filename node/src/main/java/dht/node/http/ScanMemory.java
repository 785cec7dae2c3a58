package dht.node.http;

import dht.storage.ReadBudget;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The heap all scans together may take for what the engine decompresses for them (a compressed
 * table block is read whole onto the heap; raw blocks, and so large values, are read in place): one
 * budget for the node, so that many scans at once are refused with 503 rather than run it out of
 * memory. A reservation larger than the whole budget is let through when nothing else is held,
 * else a table written with a larger block could never be scanned.
 *
 * <p>Invariant: {@code 0 <= held <= limit}, except for that one reservation alone.
 */
final class ScanMemory implements ReadBudget {
    private final long limit;
    private final AtomicLong held = new AtomicLong();

    ScanMemory(long limit) {
        if (limit < 1) throw new IllegalArgumentException("the scan memory budget must be positive");
        this.limit = limit;
    }

    /** An eighth of the heap: bodies and answers have a quarter each, and the rest is the node's own. */
    static ScanMemory forHeap(long maxMemory) {
        return new ScanMemory(Math.max(1, maxMemory / 8));
    }

    @Override
    public boolean tryReserve(int bytes) {
        while (true) {
            long h = held.get();
            if (h + bytes > limit && h != 0) return false;
            if (held.compareAndSet(h, h + bytes)) return true;
        }
    }

    @Override
    public void release(int bytes) {
        if (bytes > 0) held.addAndGet(-bytes);
    }

    long held() {
        return held.get();
    }

    long limit() {
        return limit;
    }
}
