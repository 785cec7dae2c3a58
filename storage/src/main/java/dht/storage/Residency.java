package dht.storage;

import java.lang.foreign.MemorySegment;

/**
 * Whether a table's mapping was wholly in the page cache at its last check ({@code mincore(2)},
 * through {@link MemorySegment#isLoaded}). It lets a point read run on a thread that must not wait
 * for a disk (an event loop) while the data fits in memory, and sends it to the storage threads
 * otherwise.
 *
 * <p>Invariants: {@link #resident} only reads the last answer, false before the first check; a
 * {@link #check} costs a syscall and a byte per page of the table (linear in its size), so only a
 * background thread makes it ({@link ResidencyWatch}); a segment that is not a file mapping (heap
 * or native memory) is resident; an answer can be a period and a check old, so a page the kernel
 * evicted since can still cost the thread that trusted it one disk read (a major fault).
 */
final class Residency {
    /** How long an answer stands before a new check is due. */
    static final long RECHECK_NANOS = 1_000_000_000L;

    private final MemorySegment seg;
    private final long recheckNanos;
    private volatile boolean checked;
    private volatile long checkedAt;
    private volatile boolean resident;

    Residency(MemorySegment seg) {
        this(seg, RECHECK_NANOS);
    }

    Residency(MemorySegment seg, long recheckNanos) {
        this.seg = seg;
        this.recheckNanos = recheckNanos;
    }

    /** The last check's answer; false before the first. Never checks. */
    boolean resident() {
        return resident;
    }

    /** Whether a check is due: none yet, or the last one is older than the period. */
    boolean due() {
        return !checked || System.nanoTime() - checkedAt > recheckNanos;
    }

    /** Asks the kernel now; for a background thread (see the class comment). */
    void check() {
        resident = !seg.isMapped() || seg.isLoaded();
        checkedAt = System.nanoTime();
        checked = true;
    }
}
