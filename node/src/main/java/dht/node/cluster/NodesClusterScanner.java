package dht.node.cluster;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster scan: this node's store read directly, every peer's internal scan stream opened in
 * parallel, merged by {@link MergingScan}. A source that cannot be opened counts as failed. With a
 * limit, each peer is read in pages of about that many values ({@link PagedScanSource}), so that it
 * sends what the merge may need rather than the rest of its range; this node's store is read only
 * as far as the merge goes.
 */
final class NodesClusterScanner implements ClusterScanner {
    private static final Logger log = LoggerFactory.getLogger(NodesClusterScanner.class);

    /**
     * Opens a peer's stream for {@code [start, end)} with at most {@code limit} values (records
     * that are not tombstones; 0: no limit); the stream is read lazily.
     */
    interface PeerStreams extends PagedScanSource.PageOpener {
    }

    private final String self;
    private final java.util.function.Supplier<List<String>> nodes;
    private final Store store;
    private final PeerStreams peers;
    /** Judges versions from the future ({@link MergingScan}); null: none is. */
    private final HybridLogicalClock clock;

    NodesClusterScanner(String self, List<String> nodes, Store store, PeerStreams peers) {
        this(self, () -> nodes, store, peers, null);
    }

    /** With the nodes read per scan: the membership may change. */
    NodesClusterScanner(String self, java.util.function.Supplier<List<String>> nodes, Store store, PeerStreams peers,
                        HybridLogicalClock clock) {
        this.clock = clock;
        this.self = self;
        this.nodes = nodes;
        this.store = store;
        this.peers = peers;
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] start, byte[] end, int ack) {
        return scan(start, end, ack, 0);
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] start, byte[] end, int ack, int limit) {
        if (limit < 0) throw new IllegalArgumentException("scan limit " + limit);
        List<String> nodes = this.nodes.get();
        if (ack < 1 || ack > nodes.size()) {
            throw new IllegalArgumentException("scan ack " + ack + " outside 1.." + nodes.size());
        }
        List<ScanSource> sources = new ArrayList<>(nodes.size());
        for (String node : nodes) {
            sources.add(open(node, n -> node.equals(self) ? new LocalScanSource(self, store, start, end)
                    : limit > 0 ? new PagedScanSource(n, start, end, limit, peers)
                    : peers.open(n, start, end, 0)));
        }
        return new MergingScan(sources, ack, clock);
    }

    private static ScanSource open(String node, Function<String, ScanSource> opener) {
        try {
            return opener.apply(node);
        } catch (ScanSource.ScanSourceException e) {
            log.warn("cluster scan: cannot open the stream of {}: {}", node, e.getMessage());
            return null;
        }
    }
}
