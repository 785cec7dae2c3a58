package dht.node;

import dht.storage.BackgroundPriority;
import dht.storage.StoreOptions;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The one reader of the node's {@code -D} settings: {@link #read()} parses every one, once, into a
 * {@link Tuning}. Read strictly: absent means the default, and a value the node does not know is
 * refused with a {@link BadSettingException} that names the setting and what it takes, never read
 * as something else. {@code bin/dht serve} reads them before it touches anything, so a bad one is
 * reported first.
 */
public final class JvmSettings {
    public static final String AFFINITY = "dht.affinity";
    public static final String POLL_MICROS = "dht.io.poll.micros";
    public static final String TRANSPORT = "dht.io.transport";
    public static final String STORAGE_EXECUTOR = "dht.storage.executor";
    public static final String STORAGE_QUEUE = "dht.storage.queue";
    public static final String STORAGE_BATCH = "dht.storage.batch";
    public static final String STORAGE_THREADS = "dht.storage.threads";
    public static final String BACKGROUND_PRIORITY = "dht.storage.backgroundPriority";
    public static final String YIELD_EVERY = "dht.storage.yieldEvery";
    public static final String COMPACTION_MBPS = "dht.storage.compactionMBps";
    public static final String ACCEPT_MISSING_TABLES = "dht.storage.acceptMissingTables";
    public static final String PEER_BATCH = "dht.peer.batch";
    public static final String WRITE_THREADS = "dht.storage.writeThreads";
    public static final String HINT_BYTES = "dht.hints.bytes";
    public static final String EXIT_WITH_PARENT = "dht.exitWithParent";
    public static final String JOIN_STREAM_PRIORITY = "dht.rebalance.sendPriority";
    public static final String MAX_CONNECTIONS = "dht.http.maxConnections";
    public static final String IDLE_TIMEOUT = "dht.http.idleTimeout";
    /** Read by the logging configuration (logback.xml), not here: known, so not refused. */
    public static final String LOG_LEVEL = "dht.log.level";

    /** Every setting the node takes. */
    private static final Set<String> KNOWN = Set.of(AFFINITY, POLL_MICROS, STORAGE_EXECUTOR,
            STORAGE_QUEUE, STORAGE_BATCH, STORAGE_THREADS, BACKGROUND_PRIORITY, YIELD_EVERY, COMPACTION_MBPS,
            ACCEPT_MISSING_TABLES, PEER_BATCH, WRITE_THREADS, HINT_BYTES, EXIT_WITH_PARENT, JOIN_STREAM_PRIORITY,
            MAX_CONNECTIONS, IDLE_TIMEOUT, TRANSPORT, LOG_LEVEL);

    private JvmSettings() {
    }

    /**
     * Refuses a {@code -Ddht.*} property the node does not take: a misspelt setting would otherwise
     * be ignored without a word, and the node run on the default the operator meant to change.
     * Separate from {@link #read()}, which tests call inside JVMs that carry their own
     * {@code -Ddht.seed}.
     */
    public static void refuseUnknown() {
        List<String> unknown = System.getProperties().stringPropertyNames().stream()
                .filter(n -> n.startsWith("dht.") && !KNOWN.contains(n)).sorted().toList();
        if (unknown.isEmpty()) return;
        throw new BadSettingException("-D" + unknown.getFirst() + " is not a setting the node takes (it takes "
                + KNOWN.stream().sorted().map(n -> "-D" + n).collect(Collectors.joining(", ")) + ")");
    }

    /** What {@code bin/dht serve} starts with: {@link #refuseUnknown()}, then {@link #read()}. */
    public static Tuning readStrictly() {
        refuseUnknown();
        // logback reads it, and takes a word it does not know as DEBUG: checked here all the same
        oneOf(LOG_LEVEL, null, "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF", "ALL");
        return read();
    }

    /** Every {@code -D} setting, in this order (the first bad one is the one reported). */
    public static Tuning read() {
        String affinity = oneOf(AFFINITY, Tuning.DEFAULT_AFFINITY, "cores", "none");
        long pollMicros = wholeNumber(POLL_MICROS, 0, 0, 1_000_000, "microseconds");
        String executor = oneOf(STORAGE_EXECUTOR, Tuning.DEFAULT_STORAGE_EXECUTOR, "pool", "forkjoin", "virtual");
        String queue = oneOf(STORAGE_QUEUE, Tuning.DEFAULT_STORAGE_QUEUE, "blocking", "transfer");
        String batch = oneOf(STORAGE_BATCH, null, "true", "false");
        int threads = (int) wholeNumber(STORAGE_THREADS, Tuning.DEFAULT_STORAGE_THREADS, 1, 10_000, "threads");
        StoreOptions store = StoreOptions.defaults();
        BackgroundPriority priority = priority(BACKGROUND_PRIORITY, store.backgroundPriority());
        int yieldEvery = (int) wholeNumber(YIELD_EVERY, store.yieldEveryEntries(), 0, Integer.MAX_VALUE, "entries");
        long compactionMBps = wholeNumber(COMPACTION_MBPS, 0, 0, 1L << 20, "MiB/s");
        boolean acceptMissing = flag(ACCEPT_MISSING_TABLES, false);
        String peerBatch = oneOf(PEER_BATCH, Tuning.DEFAULT_PEER_BATCH, "all", "reads", "off");
        int writeThreads = (int) wholeNumber(WRITE_THREADS, Tuning.DEFAULT_WRITE_THREADS, 0, 10_000, "threads");
        long hintBytes = wholeNumber(HINT_BYTES, Tuning.defaultHintBytes(), 0, Long.MAX_VALUE, "bytes");
        boolean exitWithParent = flag(EXIT_WITH_PARENT, false);
        BackgroundPriority sendPriority = priority(JOIN_STREAM_PRIORITY, Tuning.DEFAULT_JOIN_STREAM_PRIORITY);
        int maxConnections = (int) wholeNumber(MAX_CONNECTIONS, 0, 0, 1_000_000, "connections");
        long idleTimeout = wholeNumber(IDLE_TIMEOUT, Tuning.DEFAULT_IDLE_TIMEOUT_SECONDS, 0, 86_400, "seconds");
        String transport = oneOf(TRANSPORT, Tuning.DEFAULT_TRANSPORT, "epoll", "io_uring");
        return new Tuning(affinity, pollMicros, executor, queue, batch == null ? null : batch.equals("true"), threads,
                priority, yieldEvery, compactionMBps << 20, acceptMissing, peerBatch, writeThreads, hintBytes,
                exitWithParent, sendPriority, maxConnections, idleTimeout, transport);
    }

    /** A whole number from {@code min} to {@code max}, or {@code fallback} when unset; spaces around it are allowed. */
    static long wholeNumber(String property, long fallback, long min, long max, String unit) {
        String v = System.getProperty(property);
        if (v == null) return fallback;
        try {
            long n = Long.parseLong(v.strip());
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BadSettingException("-D" + property + " must be a whole number of " + unit + " from " + min
                + " to " + max + ", not '" + v + "'");
    }

    /** One of {@code allowed} (case-insensitive, returned as written there), or {@code fallback} when unset. */
    static String oneOf(String property, String fallback, String... allowed) {
        String v = System.getProperty(property);
        if (v == null) return fallback;
        for (String a : allowed) {
            if (a.equalsIgnoreCase(v.strip())) return a;
        }
        String last = allowed[allowed.length - 1];
        String choices = allowed.length == 1 ? last
                : String.join(", ", Arrays.asList(allowed).subList(0, allowed.length - 1)) + " or " + last;
        throw new BadSettingException("-D" + property + " must be " + choices + ", not '" + v + "'");
    }

    /** {@code normal}, {@code low} or {@code idle} (case-insensitive), or {@code fallback} when unset. */
    static BackgroundPriority priority(String property, BackgroundPriority fallback) {
        String v = oneOf(property, null, "normal", "low", "idle");
        return v == null ? fallback : BackgroundPriority.valueOf(v.toUpperCase(Locale.ROOT));
    }

    /** {@code true} or {@code false} (case-insensitive), or {@code fallback} when unset. */
    static boolean flag(String property, boolean fallback) {
        String v = oneOf(property, null, "true", "false");
        return v == null ? fallback : v.equals("true");
    }
}
