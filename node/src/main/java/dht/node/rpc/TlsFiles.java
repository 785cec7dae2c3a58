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

    /**
     * Refuses a key that is not the certificate's: it signs a challenge that the certificate's
     * public key must verify. Netty takes such a pair, and the node then fails every handshake (a
     * node that never becomes ready, with a generic TLS warning). A key in a form this check does
     * not read is left to the engine.
     */
    public void checkKeyMatchesCertificate() {
        java.security.PublicKey published;
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(cert)) {
            published = java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in).getPublicKey();
        } catch (java.io.IOException | java.security.cert.CertificateException e) {
            return; // the engine says what is wrong with the file
        }
        String algorithm = published.getAlgorithm();
        String signing = switch (algorithm) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> null;
        };
        if (signing == null) return;
        java.security.PrivateKey privateKey;
        try {
            String pem = java.nio.file.Files.readString(key, java.nio.charset.StandardCharsets.US_ASCII);
            int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
            int end = pem.indexOf("-----END PRIVATE KEY-----");
            if (begin < 0 || end < begin) return;
            byte[] der = java.util.Base64.getMimeDecoder().decode(pem.substring(begin + 27, end));
            privateKey = java.security.KeyFactory.getInstance(algorithm).generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(der));
        } catch (java.io.IOException | IllegalArgumentException | java.security.GeneralSecurityException e) {
            throw new IllegalArgumentException("the key is not a " + algorithm + " key, as the certificate's is");
        }
        try {
            byte[] challenge = new byte[32];
            new java.security.SecureRandom().nextBytes(challenge);
            java.security.Signature sign = java.security.Signature.getInstance(signing);
            sign.initSign(privateKey);
            sign.update(challenge);
            byte[] signature = sign.sign();
            java.security.Signature verify = java.security.Signature.getInstance(signing);
            verify.initVerify(published);
            verify.update(challenge);
            if (!verify.verify(signature)) throw new IllegalArgumentException("the key does not belong to the certificate");
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalArgumentException("the key does not belong to the certificate (" + e.getMessage() + ")");
        }
    }

    /** What connections to peers start with. */
    public SslContext clientContext() throws SSLException {
        SslContextBuilder b = SslContextBuilder.forClient().sslProvider(provider.engine())
                .endpointIdentificationAlgorithm("HTTPS");
        if (ca != null) b.trustManager(ca.toFile());
        return b.build();
    }
}
