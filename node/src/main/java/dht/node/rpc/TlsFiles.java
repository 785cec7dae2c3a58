package dht.node.rpc;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Path;
import javax.net.ssl.SSLException;

/**
 * The PEM files of a node that speaks HTTPS only: its certificate chain and PKCS#8 private key,
 * which it serves, and the CA certificates it checks its peers against (null: the JDK's default
 * trust store); and the engine both sides use ({@link TlsProvider}). A peer's certificate must
 * name the host of its URL (HTTPS endpoint identification).
 */
public record TlsFiles(Path cert, Path key, Path ca, TlsProvider provider) {
    public TlsFiles {
        if (provider == null) provider = TlsProvider.AUTO;
    }

    /** The files, served by BoringSSL when it loads, the JDK's engine otherwise. */
    public TlsFiles(Path cert, Path key, Path ca) {
        this(cert, key, ca, TlsProvider.AUTO);
    }

    /** What the HTTP server's connections start with. */
    public SslContext serverContext() throws SSLException {
        return SslContextBuilder.forServer(cert.toFile(), key.toFile()).sslProvider(provider.engine()).build();
    }

    /** What connections to peers start with. */
    public SslContext clientContext() throws SSLException {
        SslContextBuilder b = SslContextBuilder.forClient().sslProvider(provider.engine())
                .endpointIdentificationAlgorithm("HTTPS");
        if (ca != null) b.trustManager(ca.toFile());
        return b.build();
    }
}
