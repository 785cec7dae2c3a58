package dht.node.http;

import io.netty.handler.codec.http.FullHttpResponse;

/**
 * A request refused before it was fully read (malformed, or too large), passed down the pipeline in
 * place of the request so that its answer still goes out in request order.
 *
 * @param keepAlive false when the connection cannot be trusted any more (the decoder lost its
 *                  framing, or the client is sending a body we did not read): close after answering
 */
public record RejectedRequest(FullHttpResponse response, boolean keepAlive) {
}
