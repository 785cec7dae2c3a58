package dht.node;

import dht.node.cluster.ClusterView;
import dht.node.http.Admission;
import dht.storage.StorageErrors;
import dht.storage.Store;
import dht.storage.StoreStats;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The JSON of {@code GET /v0/status}. Built by hand (a handful of fields does not justify a JSON
 * library); every string goes through {@link #quote}. Field names are part of what operators and
 * scripts read: add fields, do not rename them.
 */
final class StatusReport {
    private final ClusterView view;
    private final Store store;
    private final Admission admission;
    private final Path dataDir;
    private final String transport;
    private final long startedAtMillis;
    private final long startedNanos;
    private final boolean clusterSecret;
    private final Duration tombstoneGrace;

    StatusReport(ClusterView view, Store store, Admission admission, Path dataDir, String transport,
                 long startedAtMillis, long startedNanos, boolean clusterSecret, Duration tombstoneGrace) {
        this.tombstoneGrace = tombstoneGrace;
        this.clusterSecret = clusterSecret;
        this.view = view;
        this.store = store;
        this.admission = admission;
        this.dataDir = dataDir;
        this.transport = transport;
        this.startedAtMillis = startedAtMillis;
        this.startedNanos = startedNanos;
    }

    String json() {
        StringBuilder b = new StringBuilder(512);
        b.append("{\"node\":").append(quote(view.self()));
        b.append(",\"cluster\":[");
        boolean first = true;
        for (String n : view.nodes()) {
            if (!first) b.append(',');
            first = false;
            b.append(quote(n));
        }
        b.append("],\"replicationFactor\":").append(view.replicationFactor());
        membership(b, view);
        b.append(",\"peers\":{");
        first = true;
        for (Map.Entry<String, Boolean> p : view.peersUp().entrySet()) {
            if (!first) b.append(',');
            first = false;
            b.append(quote(p.getKey())).append(':').append(p.getValue() ? "\"up\"" : "\"down\"");
        }
        b.append("},\"repair\":{");
        first = true;
        for (Map.Entry<String, Long> c : view.repair().entrySet()) {
            if (!first) b.append(',');
            first = false;
            b.append(quote(c.getKey())).append(':').append(c.getValue());
        }
        b.append("},\"clock\":{");
        first = true;
        for (Map.Entry<String, Long> c : view.clock().entrySet()) {
            if (!first) b.append(',');
            first = false;
            b.append(quote(c.getKey())).append(':').append(c.getValue());
        }
        b.append('}');
        perPeer(b, "hints", view.hints());
        perPeer(b, "antiEntropy", view.antiEntropy());
        // What a compaction starting now may forget: tombstones before this (epoch ms; 0: none).
        long graceHorizon = System.currentTimeMillis() - tombstoneGrace.toMillis();
        b.append(",\"tombstoneGraceMillis\":").append(tombstoneGrace.toMillis());
        b.append(",\"tombstonePurgeHorizonMillis\":").append(Math.max(0, Math.min(graceHorizon, view.purgeHorizonMillis())));
        b.append(",\"startedAtMillis\":").append(startedAtMillis);
        b.append(",\"uptimeMillis\":").append((System.nanoTime() - startedNanos) / 1_000_000);
        // Which process answers: a launcher that started a node on a port checks that it is its own
        // child answering there, not some other process that had the port first.
        b.append(",\"pid\":").append(ProcessHandle.current().pid());
        b.append(",\"dataDir\":").append(quote(dataDir.toAbsolutePath().toString()));
        b.append(",\"transport\":").append(quote(transport));
        b.append(",\"clusterSecret\":").append(clusterSecret);
        b.append(",\"requests\":{\"inFlight\":").append(admission.inFlight())
                .append(",\"maxInFlight\":").append(admission.maxInFlight())
                .append(",\"scans\":").append(admission.scans())
                .append(",\"maxScans\":").append(admission.maxScans())
                .append(",\"bodyBytes\":").append(admission.bodyBytesHeld())
                .append(",\"answerBytes\":").append(admission.answerBytesHeld())
                .append(",\"unreadAnswerBytes\":").append(admission.waitingAnswerBytes())
                .append(",\"maxBodyBytes\":").append(admission.maxBodyBytesHeld()).append('}');
        StoreStats s = store.stats();
        b.append(",\"storage\":{\"tables\":").append(s.tables())
                .append(",\"tableBytes\":").append(s.tableBytes())
                .append(",\"memtableBytes\":").append(s.memtableBytes())
                .append(",\"entries\":").append(s.entries())
                .append(",\"walBytes\":").append(s.walBytes())
                .append(",\"pendingFlushes\":").append(s.pendingFlushes())
                .append(",\"pendingCompactions\":").append(s.pendingCompactions())
                .append(",\"damagedTables\":").append(s.damagedTables());
        // Read at each status request only; the engine records an error where it handles it.
        StorageErrors errors = store.counters().errors();
        String lastError = errors.latestMessage();
        b.append(",\"errors\":").append(errors.count())
                .append(",\"lastError\":").append(lastError == null ? "null" : quote(lastError))
                .append(",\"lastErrorAgeMillis\":").append(errors.latestAgeMillis()).append('}');
        long gcCount = 0;
        long gcMillis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcCount += Math.max(0, gc.getCollectionCount()); // -1: this collector cannot say
            gcMillis += Math.max(0, gc.getCollectionTime());
        }
        b.append(",\"jvm\":{\"heapUsedBytes\":").append(heapUsedBytes())
                .append(",\"allocatedBytes\":").append(allocatedBytes())
                .append(",\"gcCount\":").append(gcCount)
                .append(",\"gcMillis\":").append(gcMillis).append('}');
        return b.append('}').toString();
    }

    private static long heapUsedBytes() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /**
     * Heap bytes allocated by all threads since the JVM started (-1 where the JVM cannot say): read
     * twice, it gives the bytes a workload allocates per request, which {@code dht bench} prints.
     */
    private static long allocatedBytes() {
        return ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
                && t.isThreadAllocatedMemorySupported() && t.isThreadAllocatedMemoryEnabled()
                ? t.getTotalThreadAllocatedBytes() : -1;
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /**
     * {@code ,"members":[...],"membershipVersion":n,"joining":[...],"leaving":[...],"laggards":[...],"rebalancing":bool,
     * "rebalance":{...}}: the agreed membership and the data moving because it changed.
     */
    private static void membership(StringBuilder b, ClusterView view) {
        dht.node.cluster.Membership m = view.membership();
        b.append(",\"members\":");
        urls(b, m.members());
        b.append(",\"membershipVersion\":").append(m.version());
        b.append(",\"joining\":");
        urls(b, m.joining());
        b.append(",\"leaving\":");
        urls(b, m.leaving());
        b.append(",\"laggards\":");
        urls(b, m.laggards());
        Map<String, Long> r = view.rebalancing();
        b.append(",\"rebalancing\":").append(r.getOrDefault("rebalancing", 0L) != 0);
        b.append(",\"rebalance\":{");
        boolean first = true;
        for (Map.Entry<String, Long> c : r.entrySet()) {
            if (c.getKey().equals("rebalancing")) continue;
            if (!first) b.append(',');
            first = false;
            b.append(quote(c.getKey())).append(':').append(c.getValue());
        }
        b.append('}');
    }

    private static void urls(StringBuilder b, java.util.List<String> urls) {
        b.append('[');
        for (int i = 0; i < urls.size(); i++) {
            if (i > 0) b.append(',');
            b.append(quote(urls.get(i)));
        }
        b.append(']');
    }

    /** {@code ,"name":{"peer":{"count":n,...},...}}: counters kept per peer. */
    private static void perPeer(StringBuilder b, String name, Map<String, Map<String, Long>> counts) {
        b.append(',').append(quote(name)).append(":{");
        boolean first = true;
        for (Map.Entry<String, Map<String, Long>> p : counts.entrySet()) {
            if (!first) b.append(',');
            first = false;
            b.append(quote(p.getKey())).append(":{");
            boolean firstCount = true;
            for (Map.Entry<String, Long> c : p.getValue().entrySet()) {
                if (!firstCount) b.append(',');
                firstCount = false;
                b.append(quote(c.getKey())).append(':').append(c.getValue());
            }
            b.append('}');
        }
        b.append('}');
    }
}
