package dht.node.rpc;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import javax.net.ssl.SSLException;

/**
 * The PEM files of a node that speaks HTTPS only: its certificate chain and PKCS#8 private key,
 * which it serves, and the CA certificates it checks its peers against (null: the JDK's default
 * trust store). Both sides use the JDK's TLS engine; a peer's certificate must name the host of
 * its URL (HTTPS endpoint identification).
 */
public record TlsFiles(Path cert, Path key, Path ca) {
    /** What the HTTP server's connections start with. */
    public SslContext serverContext() throws SSLException {
        return SslContextBuilder.forServer(cert.toFile(), key.toFile()).sslProvider(SslProvider.JDK).build();
    }

    /** What connections to peers start with. */
    public SslContext clientContext() throws SSLException {
        SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                .endpointIdentificationAlgorithm("HTTPS");
        if (ca != null) b.trustManager(ca.toFile());
        return b.build();
    }
}
