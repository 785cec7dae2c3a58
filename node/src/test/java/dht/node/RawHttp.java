package dht.node;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A raw-socket HTTP/1.1 client for what java.net.http will not send: pipelining, malformed requests. */
final class RawHttp implements AutoCloseable {
    final Socket socket;
    final InputStream in;
    final OutputStream out;

    RawHttp(int port) throws IOException {
        this(port, 0);
    }

    /** @param receiveBufferBytes the socket's receive buffer, set before connecting (0: the system's) */
    RawHttp(int port, int receiveBufferBytes) throws IOException {
        socket = new Socket();
        if (receiveBufferBytes > 0) socket.setReceiveBufferSize(receiveBufferBytes);
        socket.connect(new java.net.InetSocketAddress("localhost", port));
        socket.setSoTimeout(30_000);
        in = new java.io.BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** @param statusLine the status line as sent, without its line end */
    record Response(int status, Map<String, String> headers, byte[] body, boolean complete, String statusLine) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    void send(String raw) throws IOException {
        send(raw.getBytes(StandardCharsets.ISO_8859_1));
    }

    void send(byte[] raw) throws IOException {
        out.write(raw);
        out.flush();
    }

    /** Ends the client's side of the connection (FIN), as {@code nc -N} does after its input, and goes on reading. */
    void endOutput() throws IOException {
        socket.shutdownOutput();
    }

    /** Reads one response; {@code complete} is false if a chunked body ended without its last chunk. */
    Response read() throws IOException {
        String statusLine = line();
        if (statusLine == null) throw new EOFException("connection closed before a response");
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        String l;
        while (!(l = line()).isEmpty()) {
            int c = l.indexOf(':');
            headers.put(l.substring(0, c).trim().toLowerCase(Locale.ROOT), l.substring(c + 1).trim());
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        boolean complete = true;
        if (status < 200 || status == 204 || status == 304) {
            // no body
        } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            complete = false;
            while (true) {
                String size = line();
                if (size == null) break;
                int n = Integer.parseInt(size.trim(), 16);
                if (n == 0) {
                    line();
                    complete = true;
                    break;
                }
                body.write(in.readNBytes(n));
                line();
            }
        } else if (headers.containsKey("content-length")) {
            body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
        } else {
            body.write(in.readAllBytes());
        }
        return new Response(status, headers, body.toByteArray(), complete, statusLine);
    }

    /** A CRLF-terminated line without its terminator, or null at end of stream. */
    String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') break;
            if (c != '\r') b.write(c);
        }
        if (c == -1 && b.size() == 0) return null;
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    /** True if the server closed the connection (reads end of stream) within the socket timeout. */
    boolean closedByServer() throws IOException {
        try {
            return in.read() == -1;
        } catch (java.net.SocketException e) {
            return true; // reset
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
