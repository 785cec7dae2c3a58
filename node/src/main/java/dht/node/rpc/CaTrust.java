package dht.node.rpc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The JDK's TLS context for the blocking clients (membership calls, {@code bin/dht leave} and
 * {@code remove}): it trusts the certificates of a CA file ({@code --tls-ca}), or the JDK's
 * default trust store without one. The JDK's HTTP client also checks that the certificate names
 * the URL's host, as the peer client does.
 */
public final class CaTrust {
    private CaTrust() {
    }

    /**
     * @param ca PEM certificates to trust, or null for the JDK's defaults
     * @throws IllegalArgumentException when the file cannot be read as certificates
     */
    public static SSLContext context(Path ca) {
        try {
            if (ca == null) return SSLContext.getDefault();
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            int i = 0;
            try (InputStream in = Files.newInputStream(ca)) {
                for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                    trust.setCertificateEntry("ca" + i++, c);
                }
            }
            if (i == 0) throw new IllegalArgumentException(ca + " holds no certificate");
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, tmf.getTrustManagers(), null);
            return ssl;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read the CA certificates " + ca + ": " + e.getMessage(), e);
        }
    }
}
