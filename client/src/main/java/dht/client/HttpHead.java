package dht.client;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The status line and headers of an HTTP/1.1 response, read off a raw stream (the scan reader's:
 * the JDK's client cannot show chunk boundaries). Header names are kept in lower case; a repeated
 * header keeps its last value, which is all the scan needs.
 */
record HttpHead(int status, Map<String, String> headers) {
    /** Longest status or header line taken; the node's are far shorter. */
    static final int MAX_LINE = 16 * 1024;
    private static final int MAX_HEADERS = 100;

    static HttpHead read(InputStream in) throws IOException {
        String statusLine = line(in, MAX_LINE);
        if (statusLine == null) throw new EOFException("connection closed before the answer's head");
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) throw new IOException("not an HTTP/1.x answer: " + statusLine);
        int status;
        try {
            status = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new IOException("bad status line: " + statusLine, e);
        }
        Map<String, String> headers = new HashMap<>();
        for (int i = 0; ; i++) {
            String line = line(in, MAX_LINE);
            if (line == null) throw new EOFException("connection closed in the answer's head");
            if (line.isEmpty()) break;
            if (i == MAX_HEADERS) throw new IOException("more than " + MAX_HEADERS + " headers");
            int colon = line.indexOf(':');
            if (colon <= 0) throw new IOException("bad header line: " + line);
            headers.put(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
        }
        return new HttpHead(status, headers);
    }

    String header(String name) {
        return headers.get(name);
    }

    boolean chunked() {
        String te = header("transfer-encoding");
        return te != null && te.toLowerCase(Locale.ROOT).contains("chunked");
    }

    /**
     * One line without its CRLF (a bare LF is taken too), as ISO-8859-1 text; null at the end of
     * the stream before any byte.
     */
    static String line(InputStream in, int max) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int b = in.read();
            if (b < 0) {
                if (sb.isEmpty()) return null;
                throw new EOFException("connection closed within a line");
            }
            if (b == '\n') {
                int n = sb.length();
                if (n > 0 && sb.charAt(n - 1) == '\r') sb.setLength(n - 1);
                return sb.toString();
            }
            if (sb.length() == max) throw new IOException("line longer than " + max + " bytes");
            sb.append((char) b);
        }
    }
}
