package dht.bench;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import javax.net.ssl.SSLException;

/**
 * The TLS client context of every {@code https://} connection: the JDK's engine, the peer's
 * certificate checked against the JVM's trust store ({@code -Djavax.net.ssl.trustStore}), as the
 * node's own peer calls do. Made once, on first use.
 */
final class ClientTls {
    private static SslContext context;

    private ClientTls() {}

    static synchronized SslContext context() {
        if (context == null) {
            try {
                context = SslContextBuilder.forClient().build();
            } catch (SSLException e) {
                throw new IllegalStateException("cannot make a TLS client context: " + e.getMessage(), e);
            }
        }
        return context;
    }
}
