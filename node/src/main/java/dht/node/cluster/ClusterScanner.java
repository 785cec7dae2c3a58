package dht.node.cluster;

import dht.storage.CloseableIterator;
import dht.storage.Entry;

/**
 * The cluster-wide range scan ({@code GET /v0/entities?...&scope=cluster}): merges the internal
 * scan streams of every node by key, keeps the newest version of each key, and yields it
 * (tombstones included, so the caller skips them as it does for a local scan).
 *
 * <p>The iterator is consumed on a scan worker thread, never an event loop; {@code next()} may
 * wait for a peer's stream. If a node fails so that some key can no longer have been seen by
 * {@code ack} of its replicas, iteration throws {@link IncompleteScanException}, and the HTTP layer
 * aborts the response without the terminating chunk.
 */
public interface ClusterScanner {
    CloseableIterator<Entry> scan(byte[] start, byte[] end, int ack);

    /**
     * As {@link #scan(byte[], byte[], int)} for a caller that stops after {@code limit} live entries
     * (newest version neither a tombstone nor expired; 0: no limit). The iterator still yields every
     * key in order up to there, tombstones included; the limit only lets the scanner read less from
     * the nodes. The caller enforces it: this default ignores it.
     */
    default CloseableIterator<Entry> scan(byte[] start, byte[] end, int ack, int limit) {
        return scan(start, end, ack);
    }

    final class IncompleteScanException extends RuntimeException {
        public IncompleteScanException(String message) {
            super(message);
        }
    }
}
