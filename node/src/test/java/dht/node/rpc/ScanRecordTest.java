package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.storage.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The range stream's record, written and read back by the one codec both sides use. */
class ScanRecordTest {
    @Test
    void valuesAndTombstonesRoundTrip() throws Exception {
        List<Entry> entries = List.of(Entry.value(b("k1"), b("value"), 42), Entry.tombstone(b("k2"), -7),
                Entry.value(b("k3"), new byte[0], Long.MAX_VALUE), Entry.value(b("k4"), b("v"), 5, 1_700_000_000_000L),
                Entry.value(b("k5"), b("v"), 6).withCopies(3), Entry.value(b("k6"), b("v"), 7, 1_700_000_000_000L).withCopies(2));
        ByteBuf buf = Unpooled.buffer();
        for (Entry e : entries) {
            int before = buf.writerIndex();
            ScanRecord.write(e, buf);
            assertThat(buf.writerIndex() - before).isEqualTo(ScanRecord.size(e));
        }
        ScanRecord.Input in = input(ByteBufUtil.getBytes(buf));
        List<Entry> back = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) back.add(ScanRecord.read(in));
        for (int i = 0; i < entries.size(); i++) {
            Entry want = entries.get(i);
            Entry got = back.get(i);
            assertThat(got.key()).isEqualTo(want.key());
            assertThat(got.timestamp()).isEqualTo(want.timestamp());
            assertThat(got.isTombstone()).isEqualTo(want.isTombstone());
            assertThat(got.expiry()).isEqualTo(want.expiry());
            assertThat(got.copies()).as("the copies its write asked for").isEqualTo(want.copies());
            if (!want.isTombstone()) assertThat(got.value()).isEqualTo(want.value());
        }
    }

    @Test
    void anExpiryFollowsTheTimestampUnderFlagBitOne() {
        ByteBuf buf = Unpooled.buffer();
        ScanRecord.write(Entry.value(b("k"), b("v"), 1, 77), buf);
        assertThat(buf.getByte(0)).isEqualTo((byte) ScanRecord.EXPIRES);
        assertThat(buf.getLong(1 + 8)).isEqualTo(77);
    }

    @Test
    void theTombstoneFlagIsBitZero() {
        ByteBuf buf = Unpooled.buffer();
        ScanRecord.write(Entry.tombstone(b("k"), 1), buf);
        assertThat(buf.getByte(0)).isEqualTo((byte) ScanRecord.TOMBSTONE);
        assertThat(buf.getInt(1 + 8 + 4 + 1)).as("a tombstone's value length").isZero();
    }

    @Test
    void aNegativeLengthIsMalformed() {
        byte[] record = Unpooled.buffer().writeByte(0).writeLong(1).writeInt(-1).array();
        assertThatThrownBy(() -> ScanRecord.read(input(Arrays.copyOf(record, 13))))
                .isInstanceOf(ScanRecord.Malformed.class).hasMessage("a negative key length");
    }

    private static ScanRecord.Input input(byte[] bytes) {
        return new ScanRecord.Input() {
            private int pos;

            @Override
            public int readByte() {
                return bytes[pos++] & 0xFF;
            }

            @Override
            public byte[] readBytes(int n) {
                byte[] out = Arrays.copyOfRange(bytes, pos, pos + n);
                pos += n;
                return out;
            }
        };
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
