package dht.bench;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.util.Locale;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS client context of every {@code https://} connection: the peer's certificate checked
 * against the JVM's trust store ({@code -Djavax.net.ssl.trustStore}) and the host of its URL, as
 * the node's own peer calls do; the engine as {@code --tls-provider} says (BoringSSL through
 * netty-tcnative when it loads, by default, as the node chooses). Made once, on first use, which
 * logs the engine.
 */
final class ClientTls {
    private static final Logger log = LoggerFactory.getLogger(ClientTls.class);
    private static String provider = "auto";
    private static SslContext context;

    private ClientTls() {}

    /** The engine of the connections made from now on: {@code auto}, {@code openssl} or {@code jdk}. */
    static synchronized void use(String name) {
        String p = name.toLowerCase(Locale.ROOT);
        if (!p.equals("auto") && !p.equals("openssl") && !p.equals("jdk")) {
            throw new BenchException("--tls-provider must be auto, openssl or jdk, got " + name);
        }
        if (p.equals("openssl") && !OpenSsl.isAvailable()) {
            throw new BenchException("--tls-provider openssl: netty-tcnative's BoringSSL did not load: "
                    + OpenSsl.unavailabilityCause());
        }
        if (!p.equals(provider)) context = null;
        provider = p;
    }

    static synchronized SslContext context() {
        if (context == null) {
            SslProvider engine = switch (provider) {
                case "jdk" -> SslProvider.JDK;
                case "openssl" -> SslProvider.OPENSSL;
                default -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
            };
            try {
                context = SslContextBuilder.forClient().sslProvider(engine).endpointIdentificationAlgorithm("HTTPS").build();
            } catch (SSLException e) {
                throw new IllegalStateException("cannot make a TLS client context: " + e.getMessage(), e);
            }
            log.info("TLS to the nodes by {} (--tls-provider {})",
                    engine == SslProvider.OPENSSL ? OpenSsl.versionString() + " through netty-tcnative" : "the JDK's engine",
                    provider);
        }
        return context;
    }
}
