package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.storage.Entry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class TreeWireTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Anti-entropy hands a version on as it is: a value that expires keeps its expiry on the other node. */
    @Test
    void aPageCarriesValuesTombstonesAndExpiries() {
        List<Entry> page = List.of(Entry.value(b("a"), b("1"), 10), Entry.tombstone(b("b"), 11),
                Entry.value(b("c"), b("3"), 12, 1_700_000_000_000L).withCopies(3));

        List<Entry> back = TreeWire.decodePage(TreeWire.encodePage(page));

        assertThat(back).hasSize(3);
        assertThat(back.get(0).expiry()).isZero();
        assertThat(back.get(0).value()).isEqualTo(b("1"));
        assertThat(back.get(1).isTombstone()).isTrue();
        assertThat(back.get(1).timestamp()).isEqualTo(11);
        assertThat(back.get(2).value()).isEqualTo(b("3"));
        assertThat(back.get(2).timestamp()).isEqualTo(12);
        assertThat(back.get(2).expiry()).isEqualTo(1_700_000_000_000L);
        assertThat(back.get(2).copies()).as("the copies its write asked for").isEqualTo(3);
    }

    /**
     * A key or value length is the peer's claim: one past the page is refused before anything is
     * allocated for it (found by TreeWireFuzzTest: a length near 2^31 ran the node out of heap).
     */
    @Test
    void aLengthPastThePageIsRefusedNotAllocated() {
        byte[] key = ByteBuffer.allocate(13 + 2).put((byte) 1).putLong(5).putInt(Integer.MAX_VALUE).put(b("ab")).array();
        assertThatThrownBy(() -> TreeWire.decodePage(key)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("length of " + Integer.MAX_VALUE);
        byte[] value = ByteBuffer.allocate(13 + 1 + 4 + 1).put((byte) 0).putLong(5).putInt(1).put((byte) 'k')
                .putInt(0x40000000).put((byte) 'v').array();
        assertThatThrownBy(() -> TreeWire.decodePage(value)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("length of " + 0x40000000);
    }
}
