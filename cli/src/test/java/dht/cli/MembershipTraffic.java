package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.History;
import dht.testkit.HistoryChecker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Client traffic for the membership process tests: threads that PUT and GET {@link #KEYS} keys
 * (each PUT a value of its own) through the nodes in {@link #targets}, which a test grows and
 * shrinks as members come and go (while it is empty they wait), every operation recorded into
 * {@link #history}. A 201 acknowledges a write, 200/404 answer a read; a 4xx fails a write,
 * anything else leaves its outcome unknown. Also each key's copies, once they settle.
 */
final class MembershipTraffic implements AutoCloseable {
    static final int KEYS = 200;

    final History history = new History();
    /** Where requests go: each picks one at random. */
    final List<NodeProcess> targets = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger acked = new AtomicInteger();
    private final List<Thread> clients = new ArrayList<>();

    MembershipTraffic(List<NodeProcess> targets) {
        this.targets.addAll(targets);
    }

    static String key(int k) {
        return "key" + k;
    }

    /**
     * Writes every key once through the targets in turn, with {@code ack} of {@code from}, recorded
     * and each acknowledged; a write a busy machine timed out is sent again ({@link NodeRequests#setUp}).
     */
    void preload(NodeRequests requests, int ack, int from) {
        for (int k = 0; k < KEYS; k++) {
            History.Invocation inv = history.put(99, key(k), "pre" + k + ";");
            assertThat(requests.setUp(targets.get(k % targets.size()), key(k), "pre" + k + ";", ack, from)).isEqualTo(201);
            inv.ok();
        }
    }

    /** Starts {@code count} client threads. */
    void start(int count) {
        for (int c = 0; c < count; c++) {
            int process = c;
            clients.add(Thread.ofPlatform().name("membership-client-" + c).start(() -> run(process)));
        }
    }

    private void run(int process) {
        Random random = new Random(process);
        int n = 0;
        while (!stop.get()) {
            List<NodeProcess> now = List.copyOf(targets);
            if (now.isEmpty()) { // every node down for a moment
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
                continue;
            }
            NodeProcess target = now.get(random.nextInt(now.size()));
            String key = key(random.nextInt(KEYS));
            if (random.nextBoolean()) {
                String value = "p" + process + "-" + n++ + ";";
                put(process, target, key, value);
            } else {
                get(process, target, key);
            }
        }
    }

    private void put(int process, NodeProcess target, String key, String value) {
        History.Invocation inv = history.put(process, key, value);
        try {
            int code = http.send(HttpRequest.newBuilder(URI.create(target.url() + "/v0/entity?id=" + key))
                    .PUT(HttpRequest.BodyPublishers.ofString(value)).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
            if (code == 201) {
                inv.ok();
                acked.incrementAndGet();
            } else if (code >= 400 && code < 500) {
                inv.fail();
            } else {
                inv.unknown();
            }
        } catch (Exception e) {
            inv.unknown();
        }
    }

    private void get(int process, NodeProcess target, String key) {
        History.Invocation inv = history.get(process, key);
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(target.url() + "/v0/entity?id=" + key))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) inv.read(r.body());
            else if (r.statusCode() == 404) inv.read(null);
            else inv.unknown();
        } catch (Exception e) {
            inv.unknown();
        }
    }

    /** Stops the clients and waits for their last requests. */
    void stop() throws InterruptedException {
        stop.set(true);
        for (Thread t : clients) t.join();
    }

    /** Writes the clients had acknowledged (201) so far. */
    int acked() {
        return acked.get();
    }

    /** Fails with the checker's report unless the history shows no acknowledged write lost and no stale read. */
    void assertHistoryValid() {
        HistoryChecker.Result result = HistoryChecker.check(history);
        assertThat(result.valid()).as(result.report(10)).isTrue();
    }

    /**
     * Counts of each key's copies over {@code among}'s own data ({@code scope=local}), once they
     * are {@code expected} each for {@code keys} keys (or the last count after 60 s).
     */
    static Map<String, Integer> copiesOnceSettled(NodeRequests requests, List<NodeProcess> among, int keys, int expected)
            throws InterruptedException {
        return copiesOnceSettled(requests, among, keys, key -> expected);
    }

    /** As above, {@code expected.applyAsInt(key)} copies of each key. */
    static Map<String, Integer> copiesOnceSettled(NodeRequests requests, List<NodeProcess> among, int keys,
                                                  java.util.function.ToIntFunction<String> expected) throws InterruptedException {
        Map<String, Integer> copies = new HashMap<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            copies.clear();
            for (NodeProcess n : among) {
                for (String key : requests.local(n).keySet()) copies.merge(key, 1, Integer::sum);
            }
            if (copies.size() == keys && copies.entrySet().stream().allMatch(e -> e.getValue() == expected.applyAsInt(e.getKey()))) {
                break;
            }
            Thread.sleep(500);
        }
        return copies;
    }

    @Override
    public void close() throws InterruptedException {
        stop();
        http.close();
    }
}
