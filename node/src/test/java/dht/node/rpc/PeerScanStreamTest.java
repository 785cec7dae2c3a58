package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.node.cluster.ScanSource;
import dht.storage.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The consumer side of a peer's range stream: records whole across chunks, or a clear failure. */
class PeerScanStreamTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void recordsAreReadWholeAcrossChunks() {
        ByteBuf buf = Unpooled.buffer();
        ScanRecord.write(Entry.value(b("key"), new byte[300], 1), buf);
        ScanRecord.write(Entry.tombstone(b("gone"), 2), buf);
        byte[] all = Arrays.copyOf(buf.array(), buf.writerIndex());
        List<byte[]> chunks = new ArrayList<>();
        for (int i = 0; i < all.length; i += 7) chunks.add(Arrays.copyOfRange(all, i, Math.min(all.length, i + 7)));

        List<Entry> read = new ArrayList<>();
        try (PeerScanStream s = PeerScanStream.replaying("peer", chunks)) {
            while (s.hasNext()) read.add(s.next());
        }

        assertThat(read).hasSize(2);
        assertThat(read.get(0).key()).isEqualTo(b("key"));
        assertThat(read.get(0).value()).hasSize(300);
        assertThat(read.get(1).isTombstone()).isTrue();
    }

    /**
     * A record's key or value length is the peer's claim: memory is taken as its bytes arrive, and
     * a stream that ends first is truncated (found by PeerScanStreamFuzzTest: a length near 2^31
     * was allocated at once and ran the node out of heap).
     */
    @Test
    void aClaimedLengthPastTheStreamIsTruncatedNotAllocated() {
        byte[] record = ByteBuffer.allocate(1 + 8 + 4 + 3).put((byte) 0).putLong(1).putInt(Integer.MAX_VALUE).put(b("abc")).array();
        try (PeerScanStream s = PeerScanStream.replaying("peer", List.of(record))) {
            assertThatThrownBy(s::hasNext).isInstanceOf(ScanSource.ScanSourceException.class)
                    .hasMessage("the scan stream of peer ended inside a record");
        }
    }
}
