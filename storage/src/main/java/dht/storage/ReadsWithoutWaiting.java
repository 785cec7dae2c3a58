package dht.storage;

/**
 * A scope in which a point read must not wait for a disk: an event loop's. Inside it, a table read
 * whose data block is not in the page cache (mincore(2)) throws {@link WouldWaitException} before
 * it touches the block, and the caller hands the read to a thread that may wait.
 *
 * <p>Why per block: {@link Store#readsWithoutWaiting} once asked for every table wholly in the page
 * cache. Data a workload never reads is evicted sooner or later (memory pressure, or a kernel's
 * proactive reclaim: DAMON pages out what was not touched for a minute), and then every read went
 * to the storage threads, even those of blocks in memory; over one connection each paid the
 * hand-off (docs/benchmarks.md, "GET over one connection after writes").
 *
 * <p>Invariants: only point reads check ({@code Table.get} and its kin); a read that throws here
 * has reserved nothing and copied nothing, so it can be made again anywhere; outside the scope
 * nothing is checked and reads wait as they must.
 */
public final class ReadsWithoutWaiting {
    private static final ScopedValue<Boolean> SCOPE = ScopedValue.newInstance();
    /** Immutable, so one for every call. */
    private static final ScopedValue.Carrier IN_SCOPE = ScopedValue.where(SCOPE, Boolean.TRUE);

    /** A read that may throw, made in the scope. */
    public interface Read<T> {
        T read() throws Exception;
    }

    private ReadsWithoutWaiting() {}

    /** Makes {@code read} in the scope and returns its value; a {@link WouldWaitException} from it passes through. */
    public static <T> T call(Read<T> read) throws Exception {
        return IN_SCOPE.call(read::read);
    }

    /** Whether the calling thread is in the scope. */
    public static boolean active() {
        return SCOPE.isBound();
    }
}
