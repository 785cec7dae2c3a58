package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node's keys read across several range streams: a stream the node cuts, one that has been open
 * too long, and a busy node are all resumed right after the last key read, each key once.
 */
class ResumingKeyStreamTest {
    /** The node's keys; each request streams those at or after its {@code start}, the way a node does. */
    final TreeMap<String, String> keys = new TreeMap<>();
    /** The {@code start} of every request, in order ("" when absent). */
    final List<String> starts = new CopyOnWriteArrayList<>();
    /** How many requests to answer 503 first, and after how many keys to cut each stream (0: never). */
    final AtomicInteger busyAnswers = new AtomicInteger();
    volatile int cutAfter;
    volatile boolean cutAtOnce;
    final StubServer stub = new StubServer();

    @AfterEach
    void stop() throws Exception {
        stub.close();
    }

    String node() throws IOException {
        return stub.start(server -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    answer(s);
                } catch (IOException ignored) {
                    // closed: the test is over, or the client went away
                }
            }
        });
    }

    private void answer(Socket s) throws IOException {
        String line = StubServer.requestLine(s);
        String start = "";
        int q = line.indexOf("start=");
        if (q >= 0) {
            String raw = line.substring(q + 6).split("[ &]")[0];
            start = URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        }
        starts.add(start);
        OutputStream out = s.getOutputStream();
        if (busyAnswers.getAndDecrement() > 0) {
            out.write("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            return;
        }
        out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n" + NodeKeyStreamTest.MARK + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
        if (cutAtOnce) return;
        int sent = 0;
        for (Map.Entry<String, String> e : keys.tailMap(start, true).entrySet()) {
            if (cutAfter > 0 && sent == cutAfter) return; // cut: no terminating chunk
            byte[] r = NodeKeyStreamTest.record(false, e.getKey(), e.getValue());
            out.write((Integer.toHexString(r.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(r);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            sent++;
        }
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    }

    ResumingKeyStream open(String node, long maxStreamNanos) throws IOException {
        return ResumingKeyStream.open(node, new byte[0],
                from -> NodeKeyStream.open(node, from, null, 5, new LongAdder()), maxStreamNanos);
    }

    static List<String> drain(ResumingKeyStream s) throws IOException {
        List<String> out = new ArrayList<>();
        for (byte[] k = s.next(); k != null; k = s.next()) out.add(new String(k, StandardCharsets.UTF_8));
        return out;
    }

    @Test
    void aStreamTheNodeCutsIsResumedRightAfterTheLastKeyRead() throws Exception {
        for (String k : List.of("a", "a+b", "b", "b c", "c", "d")) keys.put(k, "v");
        cutAfter = 2;
        try (ResumingKeyStream s = open(node(), ResumingKeyStream.MAX_STREAM_NANOS)) {
            assertThat(drain(s)).containsExactly("a", "a+b", "b", "b c", "c", "d");
            assertThat(starts).containsExactly("", "a+b\0", "b c\0");
            assertThat(s.resumes()).isEqualTo(2);
        }
    }

    @Test
    void aStreamOpenTooLongIsReopenedAfterTheLastKeyRead() throws Exception {
        for (String k : List.of("a", "b", "c")) keys.put(k, "v");
        try (ResumingKeyStream s = open(node(), 0)) { // every read finds its stream too old
            assertThat(drain(s)).containsExactly("a", "b", "c");
            assertThat(starts).containsExactly("", "", "a\0", "b\0", "c\0");
        }
    }

    @Test
    void aBusyNodeIsAskedAgain() throws Exception {
        keys.put("a", "v");
        busyAnswers.set(2);
        try (ResumingKeyStream s = open(node(), ResumingKeyStream.MAX_STREAM_NANOS)) {
            assertThat(drain(s)).containsExactly("a");
            assertThat(starts).hasSize(3);
        }
    }

    @Test
    void aStreamCutAgainAndAgainWithoutAKeyFails() throws Exception {
        keys.put("a", "v");
        keys.put("b", "v");
        cutAfter = 1;
        try (ResumingKeyStream s = open(node(), ResumingKeyStream.MAX_STREAM_NANOS)) {
            assertThat(s.next()).isEqualTo("a".getBytes(StandardCharsets.UTF_8));
            cutAtOnce = true; // the stream in hand is cut, and every one after it before its first key
            assertThatThrownBy(s::next).isInstanceOf(NodeKeyStream.CutShortException.class);
        }
    }
}
