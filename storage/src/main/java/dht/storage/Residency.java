package dht.storage;

import java.lang.foreign.MemorySegment;

/**
 * Whether a table's mapping was wholly in the page cache when last asked ({@code mincore(2)},
 * through {@link MemorySegment#isLoaded}), asked again at most once per {@link #RECHECK_NANOS} (by default).
 * It lets a point read run on a thread that must not wait for a disk (an event loop) while the
 * data fits in memory, and sends it to the storage threads otherwise.
 *
 * <p>Invariants: a segment that is not a file mapping (heap or native memory) is always resident;
 * the answer is at most {@link #RECHECK_NANOS} old, so a page the kernel evicted since can still
 * cost the thread that trusted it one disk read (a major fault), the bounded price of not asking
 * before every read; races between callers only repeat a check.
 */
final class Residency {
    /** How long an answer stands: a check costs a syscall and a byte per page of the table. */
    static final long RECHECK_NANOS = 1_000_000_000L;

    private final MemorySegment seg;
    private final long recheckNanos;
    private volatile long checkedAt;
    private volatile boolean resident;

    Residency(MemorySegment seg) {
        this(seg, RECHECK_NANOS);
    }

    Residency(MemorySegment seg, long recheckNanos) {
        this.seg = seg;
        this.recheckNanos = recheckNanos;
        this.checkedAt = System.nanoTime() - recheckNanos - 1;
    }

    /** Whether every page was resident at the last check; checks again if that is too old. */
    boolean resident() {
        long now = System.nanoTime();
        if (now - checkedAt <= recheckNanos) return resident;
        boolean r = !seg.isMapped() || seg.isLoaded();
        resident = r;
        checkedAt = now;
        return r;
    }
}
