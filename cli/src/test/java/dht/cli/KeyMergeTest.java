package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyMergeTest {
    /** Keys from a list; throws after {@code failAfter} keys when it is non-negative. */
    static final class ListSource implements KeyMerge.Source {
        final String name;
        final Iterator<byte[]> keys;
        final int failAfter;
        int given;
        boolean closed;

        ListSource(String name, int failAfter, byte[]... keys) {
            this.name = name;
            this.keys = List.of(keys).iterator();
            this.failAfter = failAfter;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public byte[] next() throws IOException {
            if (given == failAfter) throw new IOException("cut");
            given++;
            return keys.hasNext() ? keys.next() : null;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    static byte[] k(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static List<String> drain(KeyMerge m) {
        List<String> out = new ArrayList<>();
        for (byte[] key = m.next(); key != null; key = m.next()) out.add(new String(key, StandardCharsets.ISO_8859_1));
        return out;
    }

    @Test
    void mergesInUnsignedByteOrderEachKeyOnce() {
        ListSource a = new ListSource("a", -1, k("a"), k("c"), k("z"), k("\u00e9"));
        ListSource b = new ListSource("b", -1, k("b"), k("c"), k("\u00e9"));
        ListSource c = new ListSource("c", -1);
        List<String> failed = new ArrayList<>();
        try (KeyMerge m = new KeyMerge(List.of(a, b, c), (s, e) -> failed.add(s.name()))) {
            // 0xE9 sorts after 'z' as an unsigned byte (as a signed one it would come first)
            assertThat(drain(m)).containsExactly("a", "b", "c", "z", "\u00e9");
        }
        assertThat(failed).isEmpty();
        assertThat(a.closed && b.closed && c.closed).isTrue();
    }

    @Test
    void aFailedStreamIsReportedAndDroppedAndTheOthersGoOn() {
        ListSource a = new ListSource("a", 2, k("a"), k("d"), k("e"));
        ListSource b = new ListSource("b", -1, k("b"), k("c"), k("f"));
        List<String> failed = new ArrayList<>();
        try (KeyMerge m = new KeyMerge(List.of(a, b), (s, e) -> failed.add(s.name() + ": " + e.getMessage()))) {
            assertThat(drain(m)).containsExactly("a", "b", "c", "d", "f");
        }
        assertThat(failed).containsExactly("a: cut");
    }
}
