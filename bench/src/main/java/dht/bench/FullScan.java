package dht.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One streaming {@code GET /v0/entities} over a plain socket, counting chunks (one per entry, per
 * the API) and bytes without keeping them: how fast a node streams a range larger than its heap.
 */
final class FullScan {
    record Result(long entries, long bytes, double firstByteMs, double seconds, int status) {
        double entriesPerSecond() {
            return seconds > 0 ? entries / seconds : 0;
        }

        double megabytesPerSecond() {
            return seconds > 0 ? bytes / seconds / (1 << 20) : 0;
        }
    }

    private FullScan() {
    }

    static Result run(Target t, String start, String end) throws IOException {
        long t0 = System.nanoTime();
        try (Socket s = new Socket(t.host(), t.port())) {
            s.setSoTimeout(60_000);
            OutputStream out = s.getOutputStream();
            String q = "/v0/entities?start=" + start + (end == null ? "" : "&end=" + end);
            out.write(("GET " + q + " HTTP/1.1\r\nHost: " + t.hostHeader() + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = new BufferedInputStream(s.getInputStream(), 1 << 16);
            String status = line(in);
            double firstByte = (System.nanoTime() - t0) / 1e6;
            int code = Integer.parseInt(status.split(" ")[1]);
            boolean chunked = false;
            for (String h = line(in); !h.isEmpty(); h = line(in)) {
                if (h.toLowerCase(java.util.Locale.ROOT).startsWith("transfer-encoding:") && h.toLowerCase(java.util.Locale.ROOT).contains("chunked")) {
                    chunked = true;
                }
            }
            if (!chunked) {
                long n = in.transferTo(OutputStream.nullOutputStream());
                return new Result(0, n, firstByte, (System.nanoTime() - t0) / 1e9, code);
            }
            long entries = 0;
            long bytes = 0;
            while (true) {
                String size = line(in);
                int semi = size.indexOf(';');
                long n = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                if (n == 0) {
                    break;
                }
                in.skipNBytes(n);
                line(in);
                entries++;
                bytes += n;
            }
            return new Result(entries, bytes, firstByte, (System.nanoTime() - t0) / 1e9, code);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                break;
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        if (c == -1 && b.isEmpty()) {
            throw new IOException("connection closed in the middle of the scan");
        }
        return b.toString();
    }
}
