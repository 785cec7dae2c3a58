package dht.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code --pipeline N}: up to N requests in flight on one connection (HTTP/1.1 pipelining), sent on
 * schedule without waiting for earlier answers, and each still measured from its intended time.
 */
class PipelineTest {
    private static final byte[] OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII);

    @Test
    void keepsUpToDepthRequestsInFlightOnOneConnection() throws Exception {
        // The server answers nothing until it holds four requests, then answers those four: only a
        // client with four requests in flight gets anywhere.
        try (BatchingServer server = new BatchingServer(4)) {
            RunResult r = run(server.url(), 0, 4, Duration.ofSeconds(2), 400);
            assertThat(r.stats().completed).isEqualTo(400);
            assertThat(r.stats().statusCounts[200]).isEqualTo(400);
            assertThat(r.stats().timeouts + r.stats().readErrors + r.stats().writeErrors).isZero();
            assertThat(server.mostHeld.get()).isEqualTo(4);
        }
    }

    @Test
    void neverMoreThanDepthInFlight() throws Exception {
        // A server that never answers: the client sends its depth and then waits, at any rate.
        try (BatchingServer server = new BatchingServer(Integer.MAX_VALUE)) {
            RunResult r = run(server.url(), 2000, 5, Duration.ofSeconds(1), -1);
            assertThat(server.mostHeld.get()).isEqualTo(5);
            assertThat(r.stats().completed).isZero();
        }
    }

    @Test
    void withoutPipeliningTheSameServerNeverAnswers() throws Exception {
        try (BatchingServer server = new BatchingServer(4)) {
            RunResult r = run(server.url(), 0, 1, Duration.ofSeconds(1), 400);
            assertThat(r.stats().completed).isZero();
            assertThat(r.stats().timeouts).isEqualTo(1);
        }
    }

    @Test
    void aConstantRateAboveOneRoundTripPerConnectionIsKeptByPipelining() throws Exception {
        // Every answer takes 10 ms (answers in order, each 10 ms after its request arrived): one
        // connection waiting for each answer does at most 100 req/s, so at 500 req/s its queue grows
        // and its p99 reaches seconds; with 16 in flight it keeps the schedule at about 10 ms.
        try (DelayingServer server = new DelayingServer(10)) {
            RunResult piped = run(server.url(), 500, 16, Duration.ofSeconds(3), -1);
            assertThat(piped.stats().completed).isBetween(1400L, 1501L);
            assertThat(piped.latencyMs(50)).isBetween(9.0, 40.0);
            assertThat(piped.latencyMs(99)).isLessThan(200.0);
        }
        try (DelayingServer server = new DelayingServer(10)) {
            RunResult serial = run(server.url(), 500, 1, Duration.ofSeconds(3), -1);
            assertThat(serial.stats().completed).isLessThan(400L);
            assertThat(serial.latencyMs(99)).isGreaterThan(1000.0);
        }
    }

    private static RunResult run(String url, double rate, int pipeline, Duration duration, long maxRequests)
            throws Exception {
        // Closed loop: no warm-up, so that every request, the first included, is counted in the window.
        Duration warmup = rate > 0 ? Duration.ofMillis(200) : Duration.ZERO;
        KeyDistribution keys = KeyDistribution.of(KeyDistribution.Kind.uniform, 1000, 0);
        RequestFactory f = new RequestFactory(Workload.get, keys, 0, 0, 0, 1, null, null, 1);
        LoadSpec spec = new LoadSpec(List.of(Target.parse(url)), 1, 1, rate, warmup, duration,
                Duration.ofSeconds(1), 20_000, f, maxRequests, false, 1, -1, pipeline);
        return new LoadGenerator(spec, null).run();
    }

    /** Reads request heads (GETs, no body) from one connection at a time and hands each to {@link #onRequest}. */
    private abstract static class OneConnectionServer implements AutoCloseable {
        final ServerSocket listener;
        private final Thread acceptor;

        OneConnectionServer() throws IOException {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            acceptor = Thread.ofPlatform().daemon().start(this::serve);
        }

        String url() {
            return "http://127.0.0.1:" + listener.getLocalPort();
        }

        private void serve() {
            while (!listener.isClosed()) {
                try (Socket s = listener.accept()) {
                    s.setTcpNoDelay(true);
                    InputStream in = new BufferedInputStream(s.getInputStream());
                    OutputStream out = s.getOutputStream();
                    while (readHead(in)) {
                        onRequest(out);
                    }
                    onClose();
                } catch (IOException | InterruptedException e) {
                    // the client closed, or the test is over
                }
            }
        }

        /** Reads to the blank line ending a request head; false at the end of the stream. */
        private static boolean readHead(InputStream in) throws IOException {
            int last4 = 0;
            int b;
            while ((b = in.read()) >= 0) {
                last4 = last4 << 8 | b;
                if (last4 == 0x0D0A0D0A) {
                    return true;
                }
            }
            return false;
        }

        abstract void onRequest(OutputStream out) throws IOException, InterruptedException;

        void onClose() {
        }

        @Override
        public void close() throws Exception {
            listener.close();
            acceptor.join(5000);
        }
    }

    /** Answers requests in batches of {@code batch}, each batch once all of it has arrived. */
    private static final class BatchingServer extends OneConnectionServer {
        private final int batch;
        private int held;
        final AtomicInteger mostHeld = new AtomicInteger();

        BatchingServer(int batch) throws IOException {
            this.batch = batch;
        }

        @Override
        void onRequest(OutputStream out) throws IOException {
            held++;
            mostHeld.accumulateAndGet(held, Math::max);
            if (held == batch) {
                for (; held > 0; held--) {
                    out.write(OK);
                }
                out.flush();
            }
        }

        @Override
        void onClose() {
            held = 0;
        }
    }

    /** Answers each request, in order, {@code delayMillis} after it arrived, while reading the next ones. */
    private static final class DelayingServer extends OneConnectionServer {
        private final long delayNanos;
        private final LinkedBlockingQueue<Long> due = new LinkedBlockingQueue<>();
        private volatile OutputStream out;
        private final Thread writer;

        DelayingServer(long delayMillis) throws IOException {
            this.delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMillis);
            writer = Thread.ofPlatform().daemon().start(this::write);
        }

        @Override
        void onRequest(OutputStream out) {
            this.out = out;
            due.add(System.nanoTime() + delayNanos);
        }

        private void write() {
            try {
                while (true) {
                    long at = due.take();
                    long wait = at - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    out.write(OK);
                    out.flush();
                }
            } catch (InterruptedException | IOException e) {
                // the test is over, or the client closed
            }
        }

        @Override
        public void close() throws Exception {
            writer.interrupt();
            super.close();
        }
    }
}
