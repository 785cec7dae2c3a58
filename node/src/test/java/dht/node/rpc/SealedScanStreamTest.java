package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.node.cluster.ScanSource;
import dht.storage.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A range stream under a cluster secret: its records are handed out only once the seal after them
 * holds, and it is complete only at its last seal, so a writer on the path without the secret can
 * add, change, drop or reorder nothing, nor pass off a cut stream as whole.
 */
class SealedScanStreamTest {
    private static final ClusterSecret SECRET = new ClusterSecret("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    private static final ClusterSecret OTHER = new ClusterSecret("fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII));
    private static final String PROOF = SECRET.sign("GET", "/internal/v0/entities?start=a", new byte[0], 1_000);

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Runs of records as a sender writes them, each run followed by its seal, the last one's the last seal. */
    private static byte[] sealed(StreamSeal seal, List<List<Entry>> runs) {
        ByteBuf out = Unpooled.buffer();
        for (int r = 0; r < runs.size(); r++) {
            ByteBuf run = Unpooled.buffer();
            for (Entry e : runs.get(r)) ScanRecord.write(e, run);
            seal.update(run.nioBuffer());
            out.writeBytes(run);
            seal.writeSeal(r == runs.size() - 1, out);
        }
        return Arrays.copyOf(out.array(), out.writerIndex());
    }

    private static final List<List<Entry>> RUNS = List.of(
            List.of(Entry.value(b("a"), b("one"), 1), Entry.tombstone(b("b"), 2)),
            List.of(Entry.value(b("c"), new byte[300], 3)),
            List.of());

    /** The first run's bytes: "a" = "one" (21), the tombstone of "b" (18), then its seal. */
    private static final int FIRST_RUN = 21 + 18 + 1 + StreamSeal.MAC_BYTES;

    /** Reads the stream in 5-byte chunks: records and seals cross chunk boundaries. */
    private static List<Entry> read(byte[] stream, StreamSeal seal) {
        List<byte[]> chunks = new ArrayList<>();
        for (int i = 0; i < stream.length; i += 5) chunks.add(Arrays.copyOfRange(stream, i, Math.min(stream.length, i + 5)));
        List<Entry> read = new ArrayList<>();
        try (PeerScanStream s = PeerScanStream.replaying("peer", chunks, seal)) {
            while (s.hasNext()) read.add(s.next());
        }
        return read;
    }

    @Test
    void aSealedStreamIsReadWhole() {
        List<Entry> read = read(sealed(SECRET.streamSeal(PROOF), RUNS), SECRET.streamSeal(PROOF));
        assertThat(read).extracting(e -> new String(e.key(), StandardCharsets.UTF_8)).containsExactly("a", "b", "c");
        assertThat(read.get(2).value()).hasSize(300);
    }

    @Test
    void aChangedByteFailsTheRunBeforeAnyOfItsRecordsIsHandedOut() {
        byte[] stream = sealed(SECRET.streamSeal(PROOF), RUNS);
        stream[FIRST_RUN + 30] ^= 1; // inside the 300-byte value of the second run
        List<Entry> handedOut = new ArrayList<>();
        List<byte[]> chunks = List.of(stream);
        try (PeerScanStream s = PeerScanStream.replaying("peer", chunks, SECRET.streamSeal(PROOF))) {
            assertThatThrownBy(() -> {
                while (s.hasNext()) handedOut.add(s.next());
            }).isInstanceOf(ScanSource.ScanSourceException.class).hasMessageContaining("seal does not hold");
        }
        assertThat(handedOut).as("the first run, proven; none of the second").hasSize(2);
    }

    @Test
    void aRecordAddedOnTheWayFailsTheStream() {
        byte[] stream = sealed(SECRET.streamSeal(PROOF), RUNS);
        ByteBuf forged = Unpooled.buffer();
        ScanRecord.write(Entry.value(b("a0"), b("planted"), Long.MAX_VALUE / 2), forged);
        byte[] withForged = new byte[stream.length + forged.readableBytes()];
        forged.readBytes(withForged, 0, forged.readableBytes());
        System.arraycopy(stream, 0, withForged, withForged.length - stream.length, stream.length);
        assertThatThrownBy(() -> read(withForged, SECRET.streamSeal(PROOF)))
                .isInstanceOf(ScanSource.ScanSourceException.class).hasMessageContaining("seal does not hold");
    }

    @Test
    void aStreamCutAfterASealAndEndedIsNotComplete() {
        byte[] stream = sealed(SECRET.streamSeal(PROOF), RUNS);
        byte[] cut = Arrays.copyOf(stream, FIRST_RUN); // then a terminating chunk, as a relay could send
        assertThatThrownBy(() -> read(cut, SECRET.streamSeal(PROOF)))
                .isInstanceOf(ScanSource.ScanSourceException.class).hasMessageContaining("without its last seal");
    }

    @Test
    void anUnsealedStreamOrOneSealedForAnotherRequestOrSecretIsRefused() {
        ByteBuf plain = Unpooled.buffer();
        ScanRecord.write(Entry.value(b("a"), b("one"), 1), plain);
        byte[] unsealed = Arrays.copyOf(plain.array(), plain.writerIndex());
        assertThatThrownBy(() -> read(unsealed, SECRET.streamSeal(PROOF))).isInstanceOf(ScanSource.ScanSourceException.class);
        String another = SECRET.sign("GET", "/internal/v0/entities?start=b", new byte[0], 1_000);
        assertThatThrownBy(() -> read(sealed(SECRET.streamSeal(another), RUNS), SECRET.streamSeal(PROOF)))
                .isInstanceOf(ScanSource.ScanSourceException.class).hasMessageContaining("seal does not hold");
        assertThatThrownBy(() -> read(sealed(OTHER.streamSeal(PROOF), RUNS), SECRET.streamSeal(PROOF)))
                .isInstanceOf(ScanSource.ScanSourceException.class).hasMessageContaining("seal does not hold");
    }

    @Test
    void runsSwappedOrOneDroppedFailTheStream() {
        StreamSeal sender = SECRET.streamSeal(PROOF);
        byte[] stream = sealed(sender, RUNS);
        byte[] dropped = Arrays.copyOfRange(stream, FIRST_RUN, stream.length); // the first run left out
        assertThatThrownBy(() -> read(dropped, SECRET.streamSeal(PROOF)))
                .isInstanceOf(ScanSource.ScanSourceException.class).hasMessageContaining("seal does not hold");
    }

    @Test
    void aStreamThatNeverSealsIsRefusedAtItsBound() {
        ByteBuf many = Unpooled.buffer();
        for (int i = 0; i <= PeerScanStream.MAX_UNSEALED; i++) ScanRecord.write(Entry.tombstone(b("k" + i), i), many);
        byte[] stream = Arrays.copyOf(many.array(), many.writerIndex());
        assertThatThrownBy(() -> read(stream, SECRET.streamSeal(PROOF)))
                .isInstanceOf(ScanSource.ScanSourceException.class).hasMessageContaining("without a seal");
    }
}
