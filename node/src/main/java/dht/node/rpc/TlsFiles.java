package dht.node.rpc;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

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

    /**
     * The same trust for the JDK's own HTTP client (membership calls): the CA certificates of
     * {@link #ca}, or the JDK's default trust store when there are none. The client checks the
     * host of the URL as the peer calls do.
     */
    public SSLContext jdkClientContext() throws IOException, GeneralSecurityException {
        if (ca == null) return SSLContext.getDefault();
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trust.setCertificateEntry("ca" + i++, c);
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return ssl;
    }
}
