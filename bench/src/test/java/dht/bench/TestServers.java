package dht.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Tiny HTTP servers on a loopback ephemeral port, for driving the generator in tests. */
final class TestServers {
    static {
        // Without TCP_NODELAY the JDK server's separate header and body writes meet the client's
        // delayed ACK (Nagle), adding up to 40 ms per response depending on timing.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private TestServers() {
    }

    static final class Running implements AutoCloseable {
        final HttpServer server;
        final ExecutorService executor;

        Running(HttpServer server, ExecutorService executor) {
            this.server = server;
            this.executor = executor;
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        @Override
        public void close() {
            server.stop(0);
            executor.shutdownNow();
        }
    }

    static Running start(HttpHandler handler, int threads) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        ExecutorService ex = Executors.newFixedThreadPool(threads);
        s.setExecutor(ex);
        s.createContext("/", handler);
        s.start();
        return new Running(s, ex);
    }

    /** A handler that adds each request's URI to {@code uris} and answers {@code status} with no body. */
    static HttpHandler recording(List<String> uris, int status) {
        return ex -> {
            uris.add(ex.getRequestURI().toString());
            answer(ex, status, new byte[0]);
        };
    }

    /** Sleeps in a handler, as a slow server does; an interrupt (the server stopping) ends it early, the flag kept. */
    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void answer(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.getRequestBody().readAllBytes();
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            ex.getResponseBody().write(body);
        }
        ex.close();
    }
}
