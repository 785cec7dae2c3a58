package dht.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stray peer: replica writes stamped {@link Long#MAX_VALUE} or an hour ahead, sent to random
 * nodes on the keys the clients use, all through a fault run. Every node must refuse each one
 * ({@code 409}); one taken would put a value in the key that no client wrote and hide every
 * client write after it, which the history checker reports. A node down or frozen gives no answer.
 * A success answer is recorded as a bug; a 409 as the refusal it must be.
 */
final class FutureTimestamps {
    static final long HOUR_MICROS = 3_600_000_000L;

    private final List<String> urls;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();
    private final Random random;
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger unanswered = new AtomicInteger();
    private final AtomicInteger other = new AtomicInteger();
    private final List<String> accepted = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopping;
    private Thread thread;

    FutureTimestamps(List<String> urls, long seed) {
        this.urls = List.copyOf(urls);
        this.random = new Random(seed);
    }

    void start() {
        thread = Thread.ofPlatform().name("future-timestamps").start(this::run);
    }

    private void run() {
        long n = 0;
        while (!stopping) {
            String url = urls.get(random.nextInt(urls.size()));
            String key = ClientWorkload.key(random.nextInt(ClientWorkload.KEYS));
            long ts = random.nextBoolean() ? Long.MAX_VALUE : System.currentTimeMillis() * 1_000 + HOUR_MICROS;
            boolean delete = random.nextInt(4) == 0;
            HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url + "/internal/v0/entity?id=" + key))
                    .header("X-Dht-Timestamp", Long.toString(ts)).timeout(Duration.ofSeconds(2));
            r = delete ? r.DELETE() : r.PUT(HttpRequest.BodyPublishers.ofString("from-the-future-" + n++));
            try {
                int status = http.send(r.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status == 409) refused.incrementAndGet();
                else if (status >= 300) other.incrementAndGet();
                else accepted.add((delete ? "DELETE " : "PUT ") + key + " at " + ts + " via " + url + ": " + status);
            } catch (IOException e) {
                unanswered.incrementAndGet();
            } catch (InterruptedException e) {
                return;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    void stop() throws InterruptedException {
        stopping = true;
        thread.join();
        http.close();
    }

    int refused() {
        return refused.get();
    }

    int unanswered() {
        return unanswered.get();
    }

    /** Answers neither 409 nor 2xx (a 503 of an overloaded node): the write was not taken. */
    int other() {
        return other.get();
    }

    /** The writes a node took (answered 2xx): each one a bug. */
    List<String> accepted() {
        synchronized (accepted) {
            return List.copyOf(accepted);
        }
    }
}
