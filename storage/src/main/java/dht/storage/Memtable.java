package dht.storage;

import java.util.Iterator;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-memory sorted buffer for the writes of one log file. Holds at most one version per key:
 * the one that {@link Entry#supersedes} the others, so the order in which writes arrive does not
 * matter. Size is an estimate (key + value + per-node overhead) used to decide when to flush.
 */
final class Memtable {
    private static final int OVERHEAD = 96;
    final long logNumber;
    private final ConcurrentSkipListMap<byte[], Entry> map = new ConcurrentSkipListMap<>(Bytes.ORDER);
    private final AtomicLong bytes = new AtomicLong();
    /** Size of this memtable's log once it is closed (for stats). */
    volatile long walBytes;

    Memtable(long logNumber) { this.logNumber = logNumber; }

    void put(Entry e) {
        Entry prev = map.putIfAbsent(e.key(), e);
        if (prev == null) {
            bytes.addAndGet(size(e));
            return;
        }
        while (e.supersedes(prev)) {
            if (map.replace(e.key(), prev, e)) {
                bytes.addAndGet(size(e) - size(prev));
                return;
            }
            prev = map.get(e.key());
        }
    }

    private static long size(Entry e) {
        return OVERHEAD + e.key().length + (e.value() == null ? 0 : e.value().length);
    }

    Entry get(byte[] key) { return map.get(key); }

    Iterator<Entry> iterator(byte[] from, byte[] to) {
        if (from == null) from = new byte[0];
        if (to != null && Bytes.ORDER.compare(from, to) >= 0) return java.util.Collections.emptyIterator();
        return (to == null ? map.tailMap(from, true) : map.subMap(from, true, to, false)).values().iterator();
    }

    long bytes() { return bytes.get(); }

    int count() { return map.size(); }

    boolean isEmpty() { return map.isEmpty(); }
}
