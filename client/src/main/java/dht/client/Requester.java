package dht.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sends one API request through the JDK's HttpClient (which pools the connections), sends it again
 * as {@link Attempts} decides (a 503, a node that cannot be connected to), and hands the final
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
    private final Settings settings;

    Requester(HttpClient http, Nodes nodes, Settings settings) {
        this.http = http;
        this.nodes = nodes;
        this.settings = settings;
    }

    /** Sends {@code method target} with {@code body} (null for none); completes as the handler says. */
    <T> CompletableFuture<T> send(String method, String target, byte[] body, Handler<T> handler) {
        CompletableFuture<T> result = new CompletableFuture<>();
        attempt(method, target, body, handler, new Attempts(nodes, settings.retryPolicy()), result);
        return result;
    }

    private <T> void attempt(String method, String target, byte[] body, Handler<T> handler, Attempts attempts,
                             CompletableFuture<T> result) {
        if (result.isDone()) return; // cancelled by the caller
        String node = attempts.node();
        HttpRequest request = HttpRequest.newBuilder(URI.create(node + target))
                .timeout(settings.requestTimeout())
                .header("User-Agent", "dht-client")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).whenComplete((answer, failure) -> {
            try {
                if (failure != null) throw Failures.ofThrowable(node, failure, settings.requestTimeout());
                if (answer.statusCode() == 503) throw unexpected(node, answer);
                result.complete(handler.handle(node, answer));
            } catch (DhtException e) {
                Duration wait;
                try {
                    wait = attempts.next(e);
                } catch (DhtException last) {
                    result.completeExceptionally(last);
                    return;
                }
                Runnable again = () -> attempt(method, target, body, handler, attempts, result);
                if (wait.isZero()) {
                    again.run();
                } else {
                    CompletableFuture.delayedExecutor(wait.toMillis(), TimeUnit.MILLISECONDS).execute(again);
                }
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
    }

    /** The exception an unexpected answer stands for. */
    static DhtException unexpected(String node, HttpResponse<byte[]> answer) {
        return Failures.ofStatus(node, answer.statusCode(), answer.body(),
                answer.headers().firstValue("Retry-After").orElse(null));
    }
}
