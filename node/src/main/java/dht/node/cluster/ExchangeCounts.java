package dht.node.cluster;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Anti-entropy's counters for one peer since start, for {@code GET /v0/status}. */
final class ExchangeCounts {
    final AtomicLong lastExchangeMillis = new AtomicLong();
    final AtomicLong lastExchangeDurationMillis = new AtomicLong();
    /**
     * When (epoch ms) this node's tree was snapshotted for the last exchange that completed in full;
     * 0: none. (Named for the scan the trees were once built by, per round.)
     */
    final AtomicLong lastFullExchangeScanMillis = new AtomicLong();
    final LongAdder exchanges = new LongAdder();
    final LongAdder failures = new LongAdder();
    final LongAdder keysCompared = new LongAdder();
    final LongAdder differingLeaves = new LongAdder();
    /** Leaves that differed but were not paged: {@link QuietLeaves}. */
    final LongAdder quietLeaves = new LongAdder();
    final LongAdder keysSent = new LongAdder();
    final LongAdder keysReceived = new LongAdder();
    final LongAdder bytesSent = new LongAdder();
    final LongAdder bytesReceived = new LongAdder();

    Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("lastExchangeMillis", lastExchangeMillis.get());
        m.put("lastExchangeDurationMillis", lastExchangeDurationMillis.get());
        m.put("lastFullExchangeScanMillis", lastFullExchangeScanMillis.get());
        m.put("exchanges", exchanges.sum());
        m.put("failures", failures.sum());
        m.put("keysCompared", keysCompared.sum());
        m.put("differingLeaves", differingLeaves.sum());
        m.put("quietLeaves", quietLeaves.sum());
        m.put("keysSent", keysSent.sum());
        m.put("keysReceived", keysReceived.sum());
        m.put("bytesSent", bytesSent.sum());
        m.put("bytesReceived", bytesReceived.sum());
        return m;
    }
}
