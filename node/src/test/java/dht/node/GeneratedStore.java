package dht.node;

import dht.storage.CloseableIterator;
import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test store whose scan yields {@code count} entries of {@code valueBytes} each, generated on the
 * fly (keys {@code g000000000}, ...), so a test can stream far more than it could hold, and can
 * see how far ahead of the client the server has read ({@link #produced}).
 */
final class GeneratedStore extends MemoryStore {
    final int count;
    final int valueBytes;
    final AtomicLong produced = new AtomicLong();

    GeneratedStore(int count, int valueBytes) {
        this.count = count;
        this.valueBytes = valueBytes;
    }

    static byte[] key(int i) {
        return String.format("g%09d", i).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public CloseableIterator<Entry> scan(byte[] from, byte[] to) {
        openIterators.incrementAndGet();
        byte[] value = new byte[valueBytes];
        Arrays.fill(value, (byte) 'v');
        return new CloseableIterator<>() {
            int i = firstAtOrAfter(from);
            boolean open = true;

            @Override
            public boolean hasNext() {
                return open && i < count && (to == null || Arrays.compareUnsigned(key(i), to) < 0);
            }

            @Override
            public Entry next() {
                if (!hasNext()) throw new NoSuchElementException();
                produced.incrementAndGet();
                return Entry.value(key(i++), value, 1);
            }

            @Override
            public void close() {
                if (open) {
                    open = false;
                    openIterators.decrementAndGet();
                }
            }
        };
    }

    private int firstAtOrAfter(byte[] from) {
        int lo = 0;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(key(mid), from) < 0) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
}
