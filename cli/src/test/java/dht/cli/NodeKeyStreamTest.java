package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.node.rpc.ClusterSecret;
import dht.node.rpc.MemberAnswer;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The wire format read key by key, over a hand-made HTTP answer: complete, cut short, and silent. */
class NodeKeyStreamTest {
    /** The header line a node's internal answer carries without a cluster secret ({@link MemberAnswer}). */
    static final String MARK = ClusterSecret.ANSWER_HEADER + ": " + MemberAnswer.UNSIGNED + "\r\n";

    final StubServer stub = new StubServer();

    @AfterEach
    void stop() throws Exception {
        stub.close();
    }

    static byte[] record(boolean tombstone, String key, String value) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        d.writeByte(tombstone ? 1 : 0);
        d.writeLong(42);
        d.writeInt(k.length);
        d.write(k);
        d.writeInt(v.length);
        d.write(v);
        return b.toByteArray();
    }

    /** Serves one request: a 200 head, {@code body} as one chunk, the last chunk only if {@code complete}; then closes (or stalls). */
    String serve(byte[] body, boolean complete, boolean stall) throws IOException {
        return stub.start(server -> {
            try (Socket s = server.accept()) {
                s.getInputStream().read(new byte[8192]);
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n" + MARK + "\r\n" + Integer.toHexString(body.length) + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                if (complete) out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                if (stall) Thread.sleep(3_000);
            }
        });
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) b.writeBytes(p);
        return b.toByteArray();
    }

    @Test
    void readsEveryKeyTombstonesIncludedAndCountsTheBytes() throws Exception {
        byte[] body = concat(record(false, "a", "value"), record(true, "b", ""), record(false, "c", "x".repeat(100_000)));
        LongAdder streamed = new LongAdder();
        try (NodeKeyStream s = NodeKeyStream.open(serve(body, true, false), new byte[0], null, 5, streamed)) {
            assertThat(new String(s.next(), StandardCharsets.UTF_8)).isEqualTo("a");
            assertThat(new String(s.next(), StandardCharsets.UTF_8)).isEqualTo("b");
            assertThat(new String(s.next(), StandardCharsets.UTF_8)).isEqualTo("c");
            assertThat(s.next()).isNull();
        }
        assertThat(streamed.sum()).isEqualTo(body.length);
    }

    @Test
    void aStreamCutBeforeItsLastChunkFailsEvenAtARecordBoundary() throws Exception {
        try (NodeKeyStream s = NodeKeyStream.open(serve(record(false, "a", "v"), false, false), new byte[0], null, 5, new LongAdder())) {
            assertThat(s.next()).isNotNull();
            assertThatThrownBy(s::next).isInstanceOf(NodeKeyStream.CutShortException.class);
        }
    }

    @Test
    void aLengthThatCannotBeIsAFailureOfThatNodeNotOfTheTool() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.writeByte(0);
        d.writeLong(42);
        d.writeInt(-5); // a key length no record has
        try (NodeKeyStream s = NodeKeyStream.open(serve(b.toByteArray(), true, false), new byte[0], null, 5, new LongAdder())) {
            assertThatThrownBy(s::next).isInstanceOf(IOException.class).isNotInstanceOf(NodeKeyStream.CutShortException.class)
                    .hasMessageContaining("malformed record: key length -5");
        }
    }

    @Test
    void aSilentNodeEndsTheReadAfterTheTimeout() throws Exception {
        try (NodeKeyStream s = NodeKeyStream.open(serve(record(false, "a", "v"), false, true), new byte[0], null, 1, new LongAdder())) {
            assertThat(s.next()).isNotNull();
            assertThatThrownBy(s::next).isInstanceOf(IOException.class).hasMessageContaining("no data for 1 s");
        }
    }

    @Test
    void aNodeNobodyListensOnCannotBeOpened() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        assertThatThrownBy(() -> NodeKeyStream.open("http://localhost:" + port, new byte[0], null, 1, new LongAdder()))
                .isInstanceOf(IOException.class).hasMessageContaining("connection refused");
    }
}
