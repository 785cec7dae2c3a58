package dht.node.rpc;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import java.util.concurrent.CompletableFuture;

/**
 * The server side of the internal point-operation protocol ({@code /internal/v0/entity} and
 * {@code /internal/v0/batch}, see docs/wire-format.md): a replica applying a coordinator's
 * timestamped write, or answering a read with the version and its timestamp. Never
 * re-coordinated. Storage work runs off the event loop.
 */
public interface ReplicaEndpoint {
    CompletableFuture<FullHttpResponse> handle(FullHttpRequest request);
}
