package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dht.node.cluster.ScanSource;
import dht.testkit.FuzzDeadline;
import dht.storage.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzzes the range stream's reader: any bytes a peer sends as the body of its scan stream, cut
 * into chunks as a connection might deliver them, are read by {@link PeerScanStream} (which
 * decodes them with {@link ScanRecord#read}) as whole records, or end in a
 * {@link ScanSource.ScanSourceException} that says what was wrong; never another exception, an
 * {@link OutOfMemoryError} (a record's length is the peer's claim, not an allocation) or an endless
 * loop. Records read, written again, read back the same. The seed corpus
 * ({@code PeerScanStreamFuzzTestInputs}) holds streams written by {@link ScanRecord#write}
 * ({@link RpcFuzzSeeds}). See docs/fuzzing.md.
 */
class PeerScanStreamFuzzTest {
    @FuzzTest(maxDuration = "10s")
    void readsWholeRecordsOrFailsClearly(byte[] data) throws Exception {
        FuzzDeadline.run(FuzzDeadline.FIRST_LOADING_NETTY_SECONDS, () -> {
            List<Entry> read = new ArrayList<>();
            try (PeerScanStream s = PeerScanStream.replaying("peer", chunks(data))) {
                while (s.hasNext()) read.add(s.next());
            } catch (ScanSource.ScanSourceException e) {
                assertThat(e.getMessage()).contains("peer").doesNotContain("null");
            }
            List<Entry> again = new ArrayList<>();
            try (PeerScanStream s = PeerScanStream.replaying("peer", List.of(written(read)))) {
                while (s.hasNext()) again.add(s.next());
            }
            assertThat(again).hasSameSizeAs(read);
            for (int i = 0; i < read.size(); i++) {
                Entry a = read.get(i), b = again.get(i);
                assertThat(b.key()).isEqualTo(a.key());
                assertThat(b.timestamp()).isEqualTo(a.timestamp());
                assertThat(b.isTombstone()).isEqualTo(a.isTombstone());
                assertThat(b.expiry()).isEqualTo(a.expiry());
                if (!a.isTombstone()) assertThat(b.value()).isEqualTo(a.value());
            }
        });
    }

    private static final ClusterSecret SECRET = new ClusterSecret("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    private static final String PROOF = "1000 proof";

    /**
     * Under a secret: bytes that carry no good seal hand out no record and end in a clear failure;
     * the same bytes sealed by a sender as one run, then read in chunks, give exactly what the
     * unsealed reader gives, or fail (a record whose flags set the seal bit is taken for a seal).
     */
    @FuzzTest(maxDuration = "10s")
    void sealedStreamsHandOutOnlyProvenRecords(byte[] data) throws Exception {
        FuzzDeadline.run(FuzzDeadline.FIRST_LOADING_NETTY_SECONDS, () -> {
            List<Entry> forged = new ArrayList<>();
            try (PeerScanStream s = PeerScanStream.replaying("peer", chunks(data), SECRET.streamSeal(PROOF))) {
                while (s.hasNext()) forged.add(s.next());
                throw new AssertionError("a stream without a good last seal ended as complete");
            } catch (ScanSource.ScanSourceException e) {
                assertThat(e.getMessage()).contains("peer").doesNotContain("null");
            }
            assertThat(forged).isEmpty();

            List<Entry> plain = new ArrayList<>();
            boolean plainFailed = false;
            try (PeerScanStream s = PeerScanStream.replaying("peer", chunks(data))) {
                while (s.hasNext()) plain.add(s.next());
            } catch (ScanSource.ScanSourceException e) {
                plainFailed = true;
            }
            StreamSeal sender = SECRET.streamSeal(PROOF);
            ByteBuf sealed = Unpooled.buffer();
            sender.update(java.nio.ByteBuffer.wrap(data));
            sealed.writeBytes(data);
            sender.writeSeal(true, sealed);
            List<Entry> read = new ArrayList<>();
            try (PeerScanStream s = PeerScanStream.replaying("peer", chunks(Arrays.copyOf(sealed.array(), sealed.writerIndex())),
                    SECRET.streamSeal(PROOF))) {
                while (s.hasNext()) read.add(s.next());
            } catch (ScanSource.ScanSourceException e) {
                return;
            }
            assertThat(plainFailed).as("the sealed read succeeded where the plain one failed").isFalse();
            assertThat(read).hasSameSizeAs(plain);
            for (int i = 0; i < read.size(); i++) {
                assertThat(read.get(i).key()).isEqualTo(plain.get(i).key());
                assertThat(read.get(i).timestamp()).isEqualTo(plain.get(i).timestamp());
            }
        });
    }

    private static byte[] written(List<Entry> entries) {
        ByteBuf out = Unpooled.buffer();
        for (Entry e : entries) ScanRecord.write(e, out);
        return Arrays.copyOf(out.array(), out.writerIndex());
    }

    /** Cuts {@code data} into chunks of 1 to 64 bytes (sized from the data), so records cross them. */
    private static List<byte[]> chunks(byte[] data) {
        List<byte[]> out = new ArrayList<>();
        int step = data.length == 0 ? 1 : 1 + (data[data.length - 1] & 63);
        for (int i = 0; i < data.length; i += step) out.add(Arrays.copyOfRange(data, i, Math.min(data.length, i + step)));
        return out;
    }
}
