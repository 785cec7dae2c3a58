package dht.node;

import dht.storage.BackgroundPriority;
import dht.storage.StoreOptions;

/**
 * The node's {@code -D} tuning knobs (given to {@code bin/dht serve} in {@code DHT_JAVA_OPTS}), as
 * values: read once at start by {@link JvmSettings#read()}, then handed down by {@link Node} to the
 * classes they tune. Most re-run a measured comparison (docs/benchmarks.md, docs/http-server.md);
 * the defaults are the measured winners.
 *
 * @param affinity            {@code dht.affinity}: {@code cores} pins event loops and storage threads
 *                            per CPU, {@code none} (default) keeps one unpinned storage pool
 * @param pollMicros          {@code dht.io.poll.micros}: how long an event loop polls after activity
 *                            before it blocks in {@code epoll_wait} (0: at once)
 * @param storageExecutor     {@code dht.storage.executor}: {@code pool} (default), {@code forkjoin} or
 *                            {@code virtual}
 * @param storageQueue        {@code dht.storage.queue}: the pool's queue, {@code blocking} (default)
 *                            or {@code transfer}
 * @param storageBatch        {@code dht.storage.batch}: whether store calls leave the event loops in
 *                            batches; null when unset, which means on unless every write is fsynced
 *                            ({@link NodeConfig#batchStoreCalls()})
 * @param storageThreads      {@code dht.storage.threads}: the storage pool's threads
 * @param backgroundPriority  {@code dht.storage.backgroundPriority}: the flush and compaction
 *                            threads' CPU priority
 * @param yieldEvery          {@code dht.storage.yieldEvery}: entries a flush or compaction writes
 *                            between yields of its CPU (0: never)
 * @param compactionBytesPerSecond {@code dht.storage.compactionMBps}, in bytes/s: a compaction's
 *                            read rate limit (0: none)
 * @param acceptMissingTables {@code dht.storage.acceptMissingTables}: the operator's consent to open
 *                            without tables gone for good
 * @param peerBatch           {@code dht.peer.batch}: which replica calls to one peer travel as one
 *                            batch, {@code all} (default), {@code reads} or {@code off}
 * @param writeThreads        {@code dht.storage.writeThreads}: store writes running at once when
 *                            store calls are batched (0: as many as the pool has threads)
 * @param hintBytes           {@code dht.hints.bytes}: the most bytes of the hints' in-memory index
 *                            (keys and per-hint overhead; values stay on disk; 0: no hinted handoff)
 * @param exitWithParent      {@code dht.exitWithParent}: for {@code bin/dht cluster}'s nodes, stop
 *                            once the launcher is gone (end of standard input)
 * @param joinStreamPriority  {@code dht.rebalance.sendPriority}: the CPU priority of the threads
 *                            that read and send the join streams this node serves
 * @param maxConnections      {@code dht.http.maxConnections}: the most connections open at once, past
 *                            which a new one gets 503 (0: derived from the heap and the descriptor
 *                            limit, {@code ConnectionLimit#defaultMax})
 * @param idleTimeoutSeconds  {@code dht.http.idleTimeout}: how long a connection may go with nothing
 *                            to do before it is closed ({@code IdleTimeout}; 0: never)
 * @param transport           {@code dht.io.transport}: the event loops' kind, {@code epoll} (default)
 *                            or {@code io_uring}, each where the platform has it, else NIO
 */
public record Tuning(String affinity, long pollMicros, String storageExecutor, String storageQueue,
                     Boolean storageBatch, int storageThreads, BackgroundPriority backgroundPriority,
                     int yieldEvery, long compactionBytesPerSecond, boolean acceptMissingTables,
                     String peerBatch, int writeThreads, long hintBytes, boolean exitWithParent,
                     BackgroundPriority joinStreamPriority, int maxConnections, long idleTimeoutSeconds,
                     String transport) {

    public static final String DEFAULT_AFFINITY = "none";
    public static final String DEFAULT_STORAGE_EXECUTOR = "pool";
    public static final String DEFAULT_STORAGE_QUEUE = "blocking";
    /**
     * 64 by measurement: with the log fsynced per write, concurrent writers share one fsync (group
     * commit), and a pool of 4 caps the group at 4 (half the throughput of 64 or of virtual threads).
     */
    public static final int DEFAULT_STORAGE_THREADS = 64;
    public static final String DEFAULT_PEER_BATCH = "all";
    public static final String DEFAULT_TRANSPORT = "epoll";
    /** 8 by measurement (docs/benchmarks.md, "Fewer threads for writes"). */
    public static final int DEFAULT_WRITE_THREADS = 8;

    /**
     * A minute, as nginx's {@code keepalive_timeout} (75 s) and {@code client_header_timeout} (60 s)
     * are near: long enough that a client pausing between requests keeps its connection, short
     * enough that connections of clients gone without a close, and heads dribbled in, give back
     * their socket and their place under the connection bound.
     */
    public static final long DEFAULT_IDLE_TIMEOUT_SECONDS = 60;

    /** Until measured otherwise: as every other thread. */
    public static final BackgroundPriority DEFAULT_JOIN_STREAM_PRIORITY = BackgroundPriority.NORMAL;

    /** The hint budget when unset: an eighth of the heap, at most 32 MiB. */
    public static long defaultHintBytes() {
        return Math.min(32L << 20, Runtime.getRuntime().maxMemory() / 8);
    }

    /** Every knob at its default, as a node with no {@code -D} settings runs. */
    public static Tuning defaults() {
        StoreOptions store = StoreOptions.defaults();
        return new Tuning(DEFAULT_AFFINITY, 0, DEFAULT_STORAGE_EXECUTOR, DEFAULT_STORAGE_QUEUE, null,
                DEFAULT_STORAGE_THREADS, store.backgroundPriority(), store.yieldEveryEntries(), 0, false,
                DEFAULT_PEER_BATCH, DEFAULT_WRITE_THREADS, defaultHintBytes(), false, DEFAULT_JOIN_STREAM_PRIORITY, 0,
                DEFAULT_IDLE_TIMEOUT_SECONDS, DEFAULT_TRANSPORT);
    }
}
