package dht.node.http;

import dht.node.exec.Completions;
import dht.node.rpc.ReplicaEndpoint;
import dht.node.text.LineThrottle;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /internal/v0/entity} and {@code /internal/v0/batch}: hands the request to the internal
 * protocol's {@link ReplicaEndpoint}, never re-coordinated, under an admission permit like any
 * other work. The endpoint reads what it needs from the request before {@code handle} returns (its
 * contract), so the router releases it then.
 */
public final class ReplicaRoute implements Route {
    private static final Logger log = LoggerFactory.getLogger(ReplicaRoute.class);

    private final ReplicaEndpoint endpoint;
    private final Admission admission;
    private final LineThrottle storeFailures = new LineThrottle(java.time.Duration.ofSeconds(10));

    public ReplicaRoute(ReplicaEndpoint endpoint, Admission admission) {
        this.endpoint = endpoint;
        this.admission = admission;
    }

    @Override
    public void handle(Request request, AnswerSlot slot) {
        if (!EntityRoute.admit(admission, slot)) return;
        FullHttpRequest http = request.http();
        String method = http.method() + " " + http.uri();
        CompletableFuture<FullHttpResponse> answer;
        try {
            answer = endpoint.handle(http);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((r, e) -> slot.respond(() -> {
            if (e != null || r == null) {
                Throwable cause = Completions.cause(e);
                if (cause instanceof java.io.IOException || cause instanceof java.io.UncheckedIOException) {
                    // The store refuses writes (a full disk, a failed log): expected until fixed, and
                    // one line per failed call would flood the log (a tester counted 61,406 in 15 s).
                    long n = storeFailures.occurred();
                    if (n > 0) log.error("replica calls failing in this node's store ({} since the last such line): {} on {}", n, cause, method);
                } else {
                    log.error("replica endpoint failed on {}", method, e);
                }
                return Responses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error");
            }
            if (!r.headers().contains(HttpHeaderNames.CONTENT_LENGTH) && !HttpUtil.isTransferEncodingChunked(r)) {
                HttpUtil.setContentLength(r, r.content().readableBytes());
            }
            return r;
        }));
    }
}
