package dht.node.cluster;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.ReadBudget;
import dht.storage.Store;

/**
 * This node's store as a scan source; read directly on the scan worker thread. Its values are
 * borrowed from the store ({@link Store#scan(byte[], byte[], ReadBudget)}), valid until the merge
 * closes it, which it does only after the entries it yielded were written out: a large value of
 * this node is never copied onto the heap for a cluster scan.
 */
final class LocalScanSource implements ScanSource {
    private final String node;
    private final CloseableIterator<Entry> it;

    LocalScanSource(String node, Store store, byte[] start, byte[] end) {
        this.node = node;
        try {
            this.it = store.scan(start, end, ReadBudget.UNLIMITED);
        } catch (Exception e) {
            throw new ScanSourceException("local scan of " + node + " failed to open: " + e, e);
        }
    }

    @Override
    public String node() {
        return node;
    }

    @Override
    public boolean hasNext() {
        try {
            return it.hasNext();
        } catch (RuntimeException e) {
            throw new ScanSourceException("local scan of " + node + " failed: " + e, e);
        }
    }

    @Override
    public Entry next() {
        try {
            return it.next();
        } catch (RuntimeException e) {
            throw new ScanSourceException("local scan of " + node + " failed: " + e, e);
        }
    }

    @Override
    public void close() {
        it.close();
    }
}
