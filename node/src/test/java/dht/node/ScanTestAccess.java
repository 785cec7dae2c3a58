package dht.node;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Lets tests in other packages drive a node over a generated store (the helpers are package-private). */
public final class ScanTestAccess {
    private ScanTestAccess() {
    }

    /** Starts a scan that the client never reads; true if the node closes the iterator and frees the scan permit. */
    public static boolean stalledScanIsReleased(Path dir) throws Exception {
        GeneratedStore generated = new GeneratedStore(1_000_000, 1024);
        try (TestNode node = TestNode.start(TestNode.config(dir), s -> generated);
             Socket socket = new Socket("localhost", node.node.port())) {
            socket.setReceiveBufferSize(16 * 1024);
            socket.getOutputStream().write("GET /v0/entities?start=g HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            if (!ScanTest.waitUntil(() -> generated.openIterators.get() == 1)) return false;
            return ScanTest.waitUntil(() -> generated.openIterators.get() == 0)
                    && ScanTest.waitUntil(() -> new String(ScanTest.getStatus(node)).contains("\"scans\":0"))
                    && generated.produced.get() < 1_000_000;
        }
    }
}
