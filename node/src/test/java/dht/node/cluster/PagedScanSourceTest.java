package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A peer read in pages hands out exactly what its unlimited stream would, however the tombstones
 * fall on the page boundaries, and asks for no page it does not need.
 */
class PagedScanSourceTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** A peer holding {@code entries}, answering {@code limit} as the internal route does, unless it predates it. */
    private static final class Peer implements PagedScanSource.PageOpener {
        final NavigableMap<byte[], Entry> entries = new TreeMap<>(Arrays::compareUnsigned);
        final List<String> opened = new ArrayList<>();
        boolean ignoresLimit;
        int failOpening = -1;

        Peer value(String key) {
            entries.put(b(key), Entry.value(b(key), b("v-" + key), 1));
            return this;
        }

        Peer tombstone(String key) {
            entries.put(b(key), Entry.tombstone(b(key), 2));
            return this;
        }

        @Override
        public ScanSource open(String peer, byte[] start, byte[] end, int limit) {
            if (opened.size() == failOpening) throw new ScanSource.ScanSourceException("peer down", null);
            opened.add(s(start) + (limit > 0 ? " limit " + limit : ""));
            NavigableMap<byte[], Entry> range = end == null ? entries.tailMap(start, true) : entries.subMap(start, true, end, false);
            List<Entry> page = new ArrayList<>();
            int values = 0;
            for (Entry e : range.values()) {
                if (!ignoresLimit && limit > 0 && values == limit) break;
                page.add(e);
                if (!e.isTombstone()) values++;
            }
            Iterator<Entry> it = page.iterator();
            return new ScanSource() {
                @Override
                public String node() {
                    return peer;
                }

                @Override
                public boolean hasNext() {
                    return it.hasNext();
                }

                @Override
                public Entry next() {
                    return it.next();
                }

                @Override
                public void close() {
                }
            };
        }
    }

    private static List<String> read(ScanSource s, int max) {
        List<String> out = new ArrayList<>();
        while (out.size() < max && s.hasNext()) {
            Entry e = s.next();
            out.add(s(e.key()) + (e.isTombstone() ? "(deleted)" : ""));
        }
        return out;
    }

    @Test
    void aPageWithFewerValuesThanItsLimitIsTheEnd() {
        Peer peer = new Peer().value("a").tombstone("b").value("c");
        PagedScanSource s = new PagedScanSource("p", b("a"), null, 5, peer);
        assertThat(read(s, 100)).containsExactly("a", "b(deleted)", "c");
        assertThat(peer.opened).containsExactly("a limit 5");
    }

    @Test
    void aFullPageIsFollowedByTheNextOneJustPastItsLastKeyTwiceAsLarge() {
        Peer peer = new Peer();
        for (String k : List.of("a", "b", "c", "d", "e", "f", "g", "h")) peer.value(k);
        peer.tombstone("b0").tombstone("c0").tombstone("e0");
        PagedScanSource s = new PagedScanSource("p", b("a"), null, 2, peer);
        assertThat(read(s, 100)).containsExactly("a", "b", "b0(deleted)", "c", "c0(deleted)", "d", "e",
                "e0(deleted)", "f", "g", "h");
        // a key followed by a zero byte is the least key after it
        assertThat(peer.opened).containsExactly("a limit 2", "b\0 limit 4", "f\0 limit 8");
    }

    @Test
    void theNextPageIsOpenedOnlyWhenTheMergeAsksPastTheLastOne() {
        Peer peer = new Peer().value("a").value("b").value("c");
        PagedScanSource s = new PagedScanSource("p", b("a"), null, 2, peer);
        assertThat(read(s, 2)).containsExactly("a", "b");
        assertThat(peer.opened).containsExactly("a limit 2");
        assertThat(read(s, 100)).containsExactly("c");
        assertThat(peer.opened).containsExactly("a limit 2", "b\0 limit 4");
    }

    @Test
    void tombstonesDoNotUseUpAPage() {
        Peer peer = new Peer().tombstone("a").tombstone("b").tombstone("c").value("d").tombstone("e");
        PagedScanSource s = new PagedScanSource("p", b("a"), null, 1, peer);
        assertThat(read(s, 100)).containsExactly("a(deleted)", "b(deleted)", "c(deleted)", "d", "e(deleted)");
        assertThat(peer.opened).containsExactly("a limit 1", "d\0 limit 2");
    }

    @Test
    void noPageStartsAtOrPastTheEndOfTheRange() {
        Peer peer = new Peer().value("a").value("b").value("c");
        PagedScanSource s = new PagedScanSource("p", b("a"), b("b\0"), 2, peer);
        assertThat(read(s, 100)).containsExactly("a", "b");
        assertThat(peer.opened).containsExactly("a limit 2");

        PagedScanSource t = new PagedScanSource("p", b("a"), b("c"), 2, peer);
        assertThat(read(t, 100)).containsExactly("a", "b");
        assertThat(peer.opened).containsExactly("a limit 2", "a limit 2", "b\0 limit 4");
    }

    @Test
    void aPeerThatIgnoresTheLimitIsReadToItsEndOnce() {
        Peer peer = new Peer().value("a").value("b").value("c").value("d");
        peer.ignoresLimit = true;
        PagedScanSource s = new PagedScanSource("p", b("a"), null, 2, peer);
        assertThat(read(s, 100)).containsExactly("a", "b", "c", "d");
        assertThat(peer.opened).containsExactly("a limit 2");
    }

    @Test
    void aPageThatCannotBeOpenedFailsTheSourceAsABrokenStreamDoes() {
        Peer peer = new Peer().value("a").value("b").value("c");
        peer.failOpening = 1;
        PagedScanSource s = new PagedScanSource("p", b("a"), null, 2, peer);
        assertThat(read(s, 2)).containsExactly("a", "b");
        assertThatThrownBy(s::hasNext).isInstanceOf(ScanSource.ScanSourceException.class);
    }

    @Test
    void theSuccessorIsTheKeyWithAZeroByteAppended() {
        byte[] key = {'k', (byte) 0xFF};
        byte[] next = PagedScanSource.successor(key);
        assertThat(next).containsExactly('k', 0xFF, 0);
        assertThat(Arrays.compareUnsigned(next, key)).isPositive();
        assertThat(Arrays.compareUnsigned(next, new byte[] {'k', (byte) 0xFF, 0, 0})).isNegative();
    }
}
