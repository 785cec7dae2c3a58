package dht.cli;

import dht.testkit.History;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Client threads that PUT, GET and DELETE a few keys through every node of a cluster, each with
 * {@code ack=2&from=3}, and record every operation into a {@link History}: invoked just before the
 * request is sent, completed as soon as its answer (or failure) is in. 201/202 acknowledge a write,
 * 200/404 answer a read, anything else (504, 503, a timeout, a lost connection) leaves a write's
 * outcome unknown; a 4xx other than a GET's 404, and a connection that could not be opened, are a
 * refusal (nothing was sent). Every PUT writes a value of its own.
 */
final class ClientWorkload implements AutoCloseable {
    static final int KEYS = 12;
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(4);
    static final int NOT_CONNECTED = -2;
    static final int NO_ANSWER = -1;

    final History history = new History();
    private final List<String> urls;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final Map<String, AtomicLong> answers = new ConcurrentHashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopping;

    /** {@code urls}: the nodes' URLs; each request goes to one of them at random. */
    ClientWorkload(List<String> urls) {
        this.urls = List.copyOf(urls);
    }

    static String key(int i) {
        return "key" + i;
    }

    /** Starts {@code count} client threads, each with its own random sequence from {@code seed}. */
    void start(int count, long seed) {
        for (int t = 0; t < count; t++) {
            int process = t;
            Random random = new Random(seed + t);
            Thread thread = Thread.ofPlatform().name("client-" + t).start(() -> run(process, random));
            threads.add(thread);
        }
    }

    private void run(int process, Random random) {
        long seq = 0;
        while (!stopping) {
            String url = urls.get(random.nextInt(urls.size()));
            String key = key(random.nextInt(KEYS));
            int kind = random.nextInt(20);
            if (kind < 9) put(process, url, key, "p" + process + "-" + seq++);
            else if (kind < 17) get(process, url, key);
            else delete(process, url, key);
        }
    }

    /** Stops the client threads and waits for their last requests to be answered or to time out. */
    void stop() throws InterruptedException {
        stopping = true;
        for (Thread t : threads) t.join(REQUEST_TIMEOUT.toMillis() * 3);
    }

    /**
     * Quorum GETs of every key through every node, recorded like the rest, after the clients have
     * stopped: each retried (up to {@code attempts} times) until answered 200 or 404. Returns how
     * many key and node pairs got such an answer.
     */
    int readEverything(int process, int attempts) throws InterruptedException {
        int answered = 0;
        for (int k = 0; k < KEYS; k++) {
            for (String url : urls) {
                for (int a = 0; a < attempts; a++) {
                    if (get(process, url, key(k))) {
                        answered++;
                        break;
                    }
                    Thread.sleep(200);
                }
            }
        }
        return answered;
    }

    void put(int process, String url, String key, String value) {
        History.Invocation op = history.put(process, key, value);
        int status = send(request(url, key).PUT(HttpRequest.BodyPublishers.ofString(value)), null);
        if (status == 201) op.ok();
        else finishUnacknowledged(op, status);
    }

    void delete(int process, String url, String key) {
        History.Invocation op = history.delete(process, key);
        int status = send(request(url, key).DELETE(), null);
        if (status == 202) op.ok();
        else finishUnacknowledged(op, status);
    }

    /** A recorded quorum GET; true when it was answered 200 or 404. */
    boolean get(int process, String url, String key) {
        History.Invocation op = history.get(process, key);
        String[] body = new String[1];
        int status = send(request(url, key).GET(), body);
        if (status == 200) op.read(body[0]);
        else if (status == 404) op.read(null);
        else finishUnacknowledged(op, status);
        return status == 200 || status == 404;
    }

    private static void finishUnacknowledged(History.Invocation op, int status) {
        if (status == NOT_CONNECTED || status >= 400 && status < 500) op.fail();
        else op.unknown();
    }

    private static HttpRequest.Builder request(String url, String key) {
        return HttpRequest.newBuilder(URI.create(url + "/v0/entity?id=" + key + "&ack=2&from=3")).timeout(REQUEST_TIMEOUT);
    }

    /**
     * The status code; {@link #NOT_CONNECTED} when no connection could be opened (the request was
     * never sent); {@link #NO_ANSWER} when it was sent and no answer came (a timeout, a connection
     * lost). A 200's body goes into {@code body}.
     */
    private int send(HttpRequest.Builder request, String[] body) {
        int status;
        try {
            HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            status = r.statusCode();
            if (body != null) body[0] = r.body();
        } catch (ConnectException | HttpConnectTimeoutException e) {
            status = NOT_CONNECTED;
        } catch (IOException e) {
            status = NO_ANSWER;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = NO_ANSWER;
        }
        String answer = switch (status) {
            case NOT_CONNECTED -> "not connected";
            case NO_ANSWER -> "no answer";
            default -> String.valueOf(status);
        };
        answers.computeIfAbsent(answer, s -> new AtomicLong()).incrementAndGet();
        return status;
    }

    /** How many requests got each answer ("201", "504", "no answer"...). */
    Map<String, Long> answers() {
        Map<String, Long> out = new TreeMap<>();
        answers.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    @Override
    public void close() {
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            http.close();
        }
    }
}
