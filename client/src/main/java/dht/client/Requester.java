package dht.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Sends one API request through the JDK's HttpClient (which pools the connections) and hands the
 * answer to a handler that turns it into a result or a typed exception.
 */
final class Requester {
    /** Reads an answer: returns the result, or throws the {@link DhtException} it stands for. */
    @FunctionalInterface
    interface Handler<T> {
        T handle(String node, HttpResponse<byte[]> answer);
    }

    private final HttpClient http;
    private final Nodes nodes;
    private final Duration requestTimeout;

    Requester(HttpClient http, Nodes nodes, Duration requestTimeout) {
        this.http = http;
        this.nodes = nodes;
        this.requestTimeout = requestTimeout;
    }

    /**
     * Sends {@code method target} with {@code body} (null for none) to a node.
     */
    <T> CompletableFuture<T> send(String method, String target, byte[] body, Handler<T> handler) {
        String node = nodes.base(nodes.first());
        HttpRequest request = HttpRequest.newBuilder(URI.create(node + target))
                .timeout(requestTimeout)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        CompletableFuture<T> result = new CompletableFuture<>();
        http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).whenComplete((answer, failure) -> {
            if (failure != null) {
                result.completeExceptionally(Failures.ofThrowable(node, failure, requestTimeout));
                return;
            }
            try {
                result.complete(handler.handle(node, answer));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** Fails the request with the exception its unexpected answer stands for. */
    static DhtException unexpected(String node, HttpResponse<byte[]> answer) {
        return Failures.ofStatus(node, answer.statusCode(), answer.body(),
                answer.headers().firstValue("Retry-After").orElse(null));
    }
}
