package dht.client;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * One scan request on its own HTTP/1.1 connection, read chunk by chunk. A raw socket rather than
 * the JDK's HttpClient, which joins the chunks of a body and so loses the entry boundaries. The
 * connection is never reused ({@code Connection: close}): a scan abandoned half-way leaves unread
 * bytes on it. The socket's read timeout is the request timeout: a node that sends nothing for that
 * long fails the scan.
 */
final class ScanConnection implements Closeable {
    /** Largest error body read (the node's are one line). */
    private static final int MAX_ERROR_BODY = 64 * 1024;

    private final String node;
    private final Socket socket;
    private final ChunkedBody body;
    private final Settings settings;

    private ScanConnection(String node, Socket socket, ChunkedBody body, Settings settings) {
        this.node = node;
        this.socket = socket;
        this.body = body;
        this.settings = settings;
    }

    /**
     * Connects to {@code node}, sends {@code GET target} and reads the answer's head.
     *
     * @throws NodeUnreachableException when no connection could be made (nothing was sent)
     * @throws DhtException for any answer but a chunked 200, or no answer
     */
    static ScanConnection open(String node, String target, Settings settings) {
        Socket socket = connect(node, settings);
        try {
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, settings.requestTimeout().toMillis()));
            URI uri = URI.create(node);
            String host = uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
            String request = "GET " + target + " HTTP/1.1\r\nHost: " + host
                    + "\r\nUser-Agent: dht-client\r\nAccept: application/octet-stream\r\nConnection: close\r\n\r\n";
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            HttpHead head = HttpHead.read(in);
            if (head.status() != 200) throw failure(node, head, in);
            if (!head.chunked()) {
                throw new DhtException("node " + node + " answered a scan without chunked encoding", node, 200, null);
            }
            return new ScanConnection(node, socket, new ChunkedBody(in), settings);
        } catch (IOException | RuntimeException e) {
            closeQuietly(socket);
            throw e instanceof DhtException d ? d : Failures.ofThrowable(node, e, settings.requestTimeout());
        }
    }

    /** The next chunk, or null after the last one. */
    byte[] next() {
        try {
            return body.next();
        } catch (SocketTimeoutException e) {
            throw new DhtTimeoutException(node, settings.requestTimeout(), e);
        } catch (IOException e) {
            throw new IncompleteScanException(node, e.getMessage(), e);
        }
    }

    String node() {
        return node;
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static Socket connect(String node, Settings settings) {
        URI uri = URI.create(node);
        boolean tls = uri.getScheme().equals("https");
        int port = uri.getPort() >= 0 ? uri.getPort() : tls ? 443 : 80;
        Socket plain = new Socket();
        try {
            plain.connect(new InetSocketAddress(uri.getHost(), port),
                    (int) Math.min(Integer.MAX_VALUE, settings.connectTimeout().toMillis()));
        } catch (IOException e) {
            closeQuietly(plain);
            throw new NodeUnreachableException(node, e);
        }
        if (!tls) return plain;
        try {
            SSLSocket s = (SSLSocket) settings.sslContext().getSocketFactory().createSocket(plain, uri.getHost(), port, true);
            SSLParameters p = s.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            s.setSSLParameters(p);
            s.startHandshake();
            return s;
        } catch (IOException e) {
            closeQuietly(plain);
            throw new DhtException("TLS handshake with node " + node + " failed: " + e.getMessage(), node, 0, e);
        }
    }

    /** The exception for a non-200 answer, its reason read from the (bounded) body. */
    private static DhtException failure(String node, HttpHead head, InputStream in) throws IOException {
        byte[] body;
        if (head.chunked()) {
            ChunkedBody chunks = new ChunkedBody(in);
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            for (byte[] c; out.size() < MAX_ERROR_BODY && (c = chunks.next()) != null; ) out.write(c);
            body = out.toByteArray();
        } else {
            String length = head.header("content-length");
            int n = MAX_ERROR_BODY;
            try {
                if (length != null) n = (int) Math.min(MAX_ERROR_BODY, Long.parseLong(length));
            } catch (NumberFormatException ignored) {
                // read what there is, up to the bound
            }
            body = in.readNBytes(n);
        }
        return Failures.ofStatus(node, head.status(), body, head.header("retry-after"));
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing more to release
        }
    }
}
