package dht.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A stand-in node (the JDK's HTTP server) that answers each request with the next scripted answer,
 * the last one repeated, and records what it was asked.
 */
final class StubNode implements AutoCloseable {
    /** One scripted answer; {@code status} 0 means never answer (hold the request). */
    record Answer(int status, String retryAfter, String body) {
        static Answer of(int status) {
            return new Answer(status, null, "");
        }

        static Answer retryAfter(int status, String retryAfter) {
            return new Answer(status, retryAfter, "stub says " + status + "\n");
        }

        static Answer never() {
            return new Answer(0, null, "");
        }
    }

    /** What a request asked for, and when it came. */
    record Seen(String method, String query, long nanos) {
    }

    private final HttpServer server;
    private final ConcurrentLinkedQueue<Answer> script;
    private volatile Answer last;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();

    private StubNode(List<Answer> answers) throws IOException {
        this.script = new ConcurrentLinkedQueue<>(answers);
        this.last = answers.getLast();
        this.server = HttpServer.create(new InetSocketAddress("localhost", 0), 50);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::answer);
        server.start();
    }

    static StubNode answering(Answer... answers) throws IOException {
        return new StubNode(List.of(answers));
    }

    String url() {
        return "http://localhost:" + server.getAddress().getPort();
    }

    List<Seen> seen() {
        return seen;
    }

    private void answer(HttpExchange ex) throws IOException {
        seen.add(new Seen(ex.getRequestMethod(), ex.getRequestURI().getRawQuery(), System.nanoTime()));
        ex.getRequestBody().readAllBytes();
        Answer a = script.poll();
        if (a == null) a = last;
        if (a.status() == 0) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.close();
            return;
        }
        if (a.retryAfter() != null) ex.getResponseHeaders().set("Retry-After", a.retryAfter());
        byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(a.status(), body.length == 0 ? -1 : body.length);
        if (body.length > 0) ex.getResponseBody().write(body);
        ex.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
