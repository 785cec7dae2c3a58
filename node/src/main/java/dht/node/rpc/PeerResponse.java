package dht.node.rpc;

import io.netty.handler.codec.http.HttpHeaders;

/** A peer's answer, copied off Netty's buffers so that nothing needs releasing. */
record PeerResponse(int status, HttpHeaders headers, byte[] body) {
}
