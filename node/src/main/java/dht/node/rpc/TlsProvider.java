package dht.node.rpc;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.util.Locale;

/**
 * Which TLS engine serves a node's HTTPS, to clients and to peers alike ({@code --tls-provider}):
 * BoringSSL through netty-tcnative ({@link #OPENSSL}), the JDK's own engine ({@link #JDK}), or
 * BoringSSL when its native library loads on this machine and the JDK's otherwise ({@link #AUTO}).
 * Both check certificates the same way (Java trust managers); only the record and handshake work
 * moves into native code.
 */
public enum TlsProvider {
    AUTO, OPENSSL, JDK;

    /** The flag's value ({@code auto}, {@code openssl}, {@code jdk}, any case). */
    public static TlsProvider parse(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "auto" -> AUTO;
            case "openssl" -> OPENSSL;
            case "jdk" -> JDK;
            default -> throw new IllegalArgumentException("--tls-provider must be auto, openssl or jdk, got " + s);
        };
    }

    /** Netty's engine for this choice; {@link #OPENSSL} without a loadable native library is refused. */
    public SslProvider engine() {
        return switch (this) {
            case AUTO -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
            case JDK -> SslProvider.JDK;
            case OPENSSL -> {
                if (!OpenSsl.isAvailable()) {
                    throw new IllegalArgumentException("--tls-provider openssl: netty-tcnative's BoringSSL did not load: "
                            + OpenSsl.unavailabilityCause());
                }
                yield SslProvider.OPENSSL;
            }
        };
    }

    /** One line for the start log: the engine that serves TLS, and why when auto fell back. */
    public String describe() {
        if (engine() == SslProvider.OPENSSL) {
            return OpenSsl.versionString() + " through netty-tcnative (--tls-provider " + name().toLowerCase(Locale.ROOT) + ")";
        }
        return "the JDK's engine (--tls-provider " + name().toLowerCase(Locale.ROOT) + ")"
                + (this == AUTO ? ", BoringSSL unavailable: " + OpenSsl.unavailabilityCause() : "");
    }
}
