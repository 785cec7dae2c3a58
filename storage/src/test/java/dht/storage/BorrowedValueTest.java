package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Values held off the heap ({@link Entry#value(byte[], MemorySegment, long)}): the store copies what
 * it keeps before the write returns, and large values go from the memtable to a table, and from
 * tables to a merged one, without being copied onto the heap.
 */
class BorrowedValueTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) { return s.getBytes(StandardCharsets.UTF_8); }

    private static byte[] pattern(int length, int seed) {
        byte[] v = new byte[length];
        for (int i = 0; i < length; i++) v[i] = (byte) (i * 31 + seed);
        return v;
    }

    @Test
    void aBorrowedValueIsCopiedBeforeTheWriteReturnsAndSurvivesFlushCompactionAndReopen() throws Exception {
        byte[] big = pattern(700 << 10, 1);
        byte[] small = pattern(100, 2);
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment bigOff = a.allocate(big.length);
                MemorySegment.copy(big, 0, bigOff, ValueLayout.JAVA_BYTE, 0, big.length);
                MemorySegment smallOff = a.allocate(small.length);
                MemorySegment.copy(small, 0, smallOff, ValueLayout.JAVA_BYTE, 0, small.length);
                s.write(List.of(Entry.value(b("big"), bigOff, 10), Entry.value(b("small"), smallOff, 10)));
                // the caller may reuse its memory as soon as the write returns
                bigOff.fill((byte) 0);
                smallOff.fill((byte) 0);
            }
            assertThat(s.get(b("big")).value()).isEqualTo(big);
            assertThat(s.get(b("small")).value()).isEqualTo(small);
            s.flush();
            s.put(b("other"), b("x"), 11);
            s.flush();
            s.compact();
            assertThat(s.get(b("big")).value()).isEqualTo(big);
            assertThat(s.get(b("small")).value()).isEqualTo(small);
        }
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults())) {
            assertThat(s.get(b("big")).value()).isEqualTo(big);
            assertThat(s.get(b("small")).value()).isEqualTo(small);
            assertThat(s.get(b("big")).isBorrowed()).as("what the store hands out is an array").isFalse();
        }
    }

    @Test
    void aBorrowedValueInTheLogIsReplayedAfterACrash(@TempDir Path crashed) throws Exception {
        byte[] big = pattern(600 << 10, 3);
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults());
             Arena a = Arena.ofConfined()) {
            MemorySegment off = a.allocate(big.length);
            MemorySegment.copy(big, 0, off, ValueLayout.JAVA_BYTE, 0, big.length);
            s.write(List.of(Entry.value(b("k"), off, 5)));
            // a copy of the directory now is what a crash right after the acknowledgement leaves
            DirectoryCopy.of(dir, crashed);
        }
        java.nio.file.Files.deleteIfExists(crashed.resolve("LOCK"));
        try (LsmStore s = LsmStore.open(crashed, StoreOptions.defaults())) {
            assertThat(s.get(b("k")).value()).isEqualTo(big);
        }
    }

    /**
     * The flush and compaction threads allocate on the heap only their buffers and the keys: 24 values
     * of 1 MiB (each a humongous array on a small heap, if it were copied) cost well under their size.
     */
    @Test
    void flushAndCompactionDoNotCopyValuesOntoTheHeap() throws Exception {
        int values = 24;
        try (LsmStore s = LsmStore.open(dir, StoreOptions.defaults().withMemtableBytes(64 << 20))) {
            long before = allocatedBy("dht-storage-flush", "dht-storage-compact");
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < values / 2; i++) s.put(b("k" + round + "." + i), pattern(1 << 20, i), 1 + i);
                s.flush();
            }
            s.compact();
            long allocated = allocatedBy("dht-storage-flush", "dht-storage-compact") - before;
            assertThat(allocated).as("heap bytes allocated by flush and compaction threads").isLessThan(4L << 20);
            for (int i = 0; i < values / 2; i++) assertThat(s.get(b("k1." + i)).value()).isEqualTo(pattern(1 << 20, i));
        }
    }

    private static long allocatedBy(String... names) {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            for (String n : names) if (t.getName().equals(n)) sum += Math.max(0, mx.getThreadAllocatedBytes(t.threadId()));
        }
        return sum;
    }
}
