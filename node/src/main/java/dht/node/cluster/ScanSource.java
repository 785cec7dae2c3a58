package dht.node.cluster;

import dht.storage.CloseableIterator;
import dht.storage.Entry;

/**
 * One node's part of a cluster scan: its newest version of every key in the range, sorted by key
 * as unsigned bytes, tombstones included. {@code hasNext}/{@code next} may block (a peer's stream)
 * and throw {@link ScanSourceException} when the source failed before its end.
 */
public interface ScanSource extends CloseableIterator<Entry> {
    String node();

    /** The source could not deliver the rest of its range. */
    final class ScanSourceException extends RuntimeException {
        public ScanSourceException(String message, Throwable cause) {
            super(message, cause, false, false);
        }
    }
}
