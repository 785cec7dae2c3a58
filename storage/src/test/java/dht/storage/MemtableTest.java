package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The off-heap memtable against a TreeMap model, under concurrent readers, and its lifetime. */
class MemtableTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Memtable memtable() {
        Memtable m = new Memtable(1, MemtableArena.MIN_CHUNK, 1 << 20);
        m.retain();
        return m;
    }

    @Test
    void keepsTheVersionThatSupersedesTheOthersWhateverTheArrivalOrder() {
        Memtable m = memtable();
        m.put(Entry.value(b("k"), b("new"), 20));
        m.put(Entry.value(b("k"), b("old"), 10));
        assertThat(m.get(b("k"))).isEqualTo(Entry.value(b("k"), b("new"), 20));
        m.put(Entry.tombstone(b("k"), 20)); // a tie: the tombstone wins
        assertThat(m.get(b("k")).isTombstone()).isTrue();
        m.put(Entry.value(b("k"), b("zzz"), 20)); // loses to the tombstone of the same timestamp
        assertThat(m.get(b("k")).isTombstone()).isTrue();
        m.put(Entry.value(b("k"), b(""), 30)); // an empty value is a value, not a tombstone
        assertThat(m.get(b("k"))).isEqualTo(Entry.value(b("k"), new byte[0], 30));
        assertThat(m.count()).isEqualTo(1);
        assertThat(m.get(b("j"))).isNull();
        assertThat(m.get(b("kk"))).isNull();
        m.release();
    }

    @Test
    void matchesASortedMapUnderRandomWritesWithBinaryKeysAndLargeValues() {
        Random r = new Random(42);
        Memtable m = memtable();
        TreeMap<byte[], Entry> model = new TreeMap<>(Bytes.ORDER);
        for (int i = 0; i < 20_000; i++) {
            byte[] key = new byte[1 + r.nextInt(6)];
            for (int j = 0; j < key.length; j++) key[j] = (byte) r.nextInt(4) == 0 ? (byte) 0xff : (byte) r.nextInt(8);
            long ts = r.nextInt(50);
            Entry e;
            if (r.nextInt(10) == 0) {
                e = Entry.tombstone(key, ts);
            } else {
                // now and then larger than the arena's chunk, so it gets a chunk of its own
                byte[] v = new byte[r.nextInt(500) == 0 ? MemtableArena.MIN_CHUNK + r.nextInt(1000) : r.nextInt(40)];
                r.nextBytes(v);
                e = Entry.value(key, v, ts);
            }
            m.put(e);
            Entry old = model.get(key);
            if (e.supersedes(old)) model.put(key, e);
        }
        assertThat(m.count()).isEqualTo(model.size());
        List<Entry> all = new ArrayList<>();
        m.iterator(null, null).forEachRemaining(all::add);
        assertThat(all).containsExactlyElementsOf(model.values());
        for (Map.Entry<byte[], Entry> e : model.entrySet()) assertThat(m.get(e.getKey())).isEqualTo(e.getValue());

        byte[] from = {3};
        byte[] to = {5, 0};
        List<Entry> range = new ArrayList<>();
        m.iterator(from, to).forEachRemaining(range::add);
        assertThat(range).containsExactlyElementsOf(model.subMap(from, true, to, false).values());
        assertThat(m.iterator(to, from).hasNext()).isFalse();
        assertThat(m.bytes()).isGreaterThan(model.size() * 16L);
        m.release();
    }

    /**
     * Keys long enough to be compared a word at a time, sharing long prefixes, with bytes on both
     * sides of the sign bit: the memtable's order, lookups and ranges are the unsigned byte order.
     */
    /**
     * Enough keys for many nodes above the writer's copied level (MemtableUpperLevels), most sharing
     * their first eight bytes, some shorter or ending in zero bytes: inserts that start from the copy
     * link in where a search from the top would.
     */
    @Test
    void insertsFromTheUpperLevelsCopyKeepTheOrderOfKeysSharingTheirFirstEightBytes() {
        Random r = new Random(5);
        Memtable m = new Memtable(1, MemtableArena.MIN_CHUNK, 64 << 20);
        m.retain();
        TreeMap<byte[], Entry> model = new TreeMap<>(Bytes.ORDER);
        for (int i = 0; i < 60_000; i++) {
            byte[] key = new byte[r.nextInt(4) == 0 ? r.nextInt(9) : 8 + r.nextInt(5)];
            for (int j = 0; j < key.length; j++) key[j] = (byte) (r.nextInt(3) == 0 ? 0 : r.nextInt(256));
            if (key.length >= 8 && r.nextBoolean()) System.arraycopy(b("sharedpx"), 0, key, 0, 8);
            Entry e = Entry.value(key, b("v" + i), i);
            m.put(e);
            model.put(key, e);
        }
        List<Entry> inOrder = new ArrayList<>();
        m.iterator(null, null).forEachRemaining(inOrder::add);
        assertThat(inOrder).containsExactlyElementsOf(model.values());
        for (Map.Entry<byte[], Entry> e : model.entrySet()) assertThat(m.get(e.getKey())).isEqualTo(e.getValue());
        m.release();
    }

    @Test
    void ordersLongKeysWithSharedPrefixesAndHighBytesAsUnsignedBytes() {
        Random r = new Random(7);
        byte[] alphabet = {0x00, 0x01, 0x7f, (byte) 0x80, (byte) 0xfe, (byte) 0xff};
        Memtable m = memtable();
        TreeMap<byte[], Entry> model = new TreeMap<>(Bytes.ORDER);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            byte[] key;
            if (!keys.isEmpty() && r.nextBoolean()) {
                byte[] base = keys.get(r.nextInt(keys.size())); // a near neighbour: same prefix, then differs or ends
                key = java.util.Arrays.copyOf(base, Math.max(1, base.length + r.nextInt(5) - 2));
                if (r.nextBoolean()) key[r.nextInt(key.length)] = alphabet[r.nextInt(alphabet.length)];
            } else {
                key = new byte[1 + r.nextInt(24)];
                for (int j = 0; j < key.length; j++) key[j] = alphabet[r.nextInt(alphabet.length)];
            }
            keys.add(key);
            Entry e = Entry.value(key, new byte[] {(byte) i}, i);
            m.put(e);
            model.put(key, e);
        }
        List<Entry> all = new ArrayList<>();
        m.iterator(null, null).forEachRemaining(all::add);
        assertThat(all).containsExactlyElementsOf(model.values());
        for (byte[] k : keys) assertThat(m.get(k)).isEqualTo(model.get(k));
        for (int i = 0; i < 200; i++) {
            byte[] from = keys.get(r.nextInt(keys.size()));
            byte[] to = keys.get(r.nextInt(keys.size()));
            byte[] absent = java.util.Arrays.copyOf(from, from.length + 1); // one more byte: maybe in no entry
            assertThat(m.get(absent)).isEqualTo(model.get(absent));
            if (Bytes.ORDER.compare(from, to) >= 0) continue;
            List<Entry> range = new ArrayList<>();
            m.iterator(from, to).forEachRemaining(range::add);
            assertThat(range).containsExactlyElementsOf(model.subMap(from, true, to, false).values());
        }
        m.release();
    }

    @Test
    void readersSeeWholeEntriesInOrderWhileTheWriterInsertsAndReplaces() throws Exception {
        Memtable m = memtable();
        AtomicBoolean done = new AtomicBoolean();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            Random r = new Random(t);
            readers.add(Thread.ofPlatform().start(() -> {
                while (!done.get()) {
                    byte[] key = b("key" + r.nextInt(5_000));
                    Entry e = m.get(key);
                    // every value spells out its key and timestamp: a torn read cannot match
                    if (e != null && !Arrays.equals(e.value(), b(new String(key, StandardCharsets.UTF_8) + "@" + e.timestamp()))) {
                        problems.add("torn " + e);
                    }
                    byte[] prev = null;
                    Iterator<Entry> it = m.iterator(b("key" + r.nextInt(5_000)), null);
                    for (int i = 0; i < 50 && it.hasNext(); i++) {
                        Entry x = it.next();
                        if (prev != null && Bytes.ORDER.compare(prev, x.key()) >= 0) problems.add("out of order at " + x);
                        prev = x.key();
                    }
                }
            }));
        }
        Random w = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            String key = "key" + w.nextInt(5_000);
            long ts = i;
            m.put(Entry.value(b(key), b(key + "@" + ts), ts));
        }
        done.set(true);
        for (Thread t : readers) t.join();
        assertThat(problems).isEmpty();
        assertThat(m.count()).isEqualTo(5_000);
        m.release();
    }

    @Test
    void theLastReleaseFreesTheNativeMemorySoNothingCanReadItAfterwards() {
        Memtable m = new Memtable(1, MemtableArena.MIN_CHUNK, 1 << 20);
        Version v = new Version(m, List.of(), List.of());
        assertThat(v.tryRetain()).isTrue(); // a reader
        m.put(Entry.value(b("k"), b("v"), 1));
        v.release(); // the store lets go; the reader still holds it
        assertThat(m.get(b("k")).value()).isEqualTo(b("v"));
        v.release(); // the reader is done
        assertThatThrownBy(() -> m.get(b("k"))).isInstanceOf(IllegalStateException.class);
    }
}
