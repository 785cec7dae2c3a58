package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.rpc.CaTrust;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * A test CA made with openssl in a directory, and one certificate for localhost (127.0.0.1) it
 * signed, its key in PKCS#8 PEM: what a TLS cluster's nodes are started with.
 */
record TestCa(Path ca, Path cert, Path key) {
    static TestCa create(Path dir) throws Exception {
        Files.createDirectories(dir);
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=dht test CA");
        openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "node.key", "-out", "node.csr", "-subj", "/CN=localhost");
        Files.writeString(dir.resolve("ext.cnf"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
        openssl(dir, "x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "node.pem", "-days", "2", "-extfile", "ext.cnf");
        return new TestCa(dir.resolve("ca.pem"), dir.resolve("node.pem"), dir.resolve("node.key"));
    }

    private static void openssl(Path dir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("openssl %s: %s", cmd, out).isZero();
    }

    /** The flags of {@code bin/dht serve} for a node with this certificate, checking peers with the CA. */
    List<String> serveFlags() {
        return List.of("--tls-cert", cert.toString(), "--tls-key", key.toString(), "--tls-ca", ca.toString());
    }

    /** A client context that trusts this CA alone. */
    SSLContext trust() {
        return CaTrust.context(ca);
    }
}
