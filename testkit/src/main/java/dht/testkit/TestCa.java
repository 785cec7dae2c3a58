package dht.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A test CA made with openssl in a directory, and one certificate for localhost (127.0.0.1) it
 * signed, its key in PKCS#8 PEM: what the nodes of a TLS test are started with. Paths only; a
 * test builds its client's trust from {@link #ca()} itself.
 */
public record TestCa(Path ca, Path cert, Path key) {
    /** Makes the CA and the certificate in {@code dir}: ca.pem, node.pem and node.key, among others. */
    public static TestCa create(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=dht test CA");
        openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "node.key", "-out", "node.csr", "-subj", "/CN=localhost");
        Files.writeString(dir.resolve("ext.cnf"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
        openssl(dir, "x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "node.pem", "-days", "2", "-extfile", "ext.cnf");
        return new TestCa(dir.resolve("ca.pem"), dir.resolve("node.pem"), dir.resolve("node.key"));
    }

    /** Runs {@code openssl args} in {@code dir}; fails with its output unless it exits 0 within a minute. */
    public static void openssl(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", cmd) + " did not end within 60 s: " + out);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " exited with " + p.exitValue() + ": " + out);
        }
    }

    /** The flags of {@code bin/dht serve} for a node with this certificate, checking peers with the CA. */
    public List<String> serveFlags() {
        return List.of("--tls-cert", cert.toString(), "--tls-key", key.toString(), "--tls-ca", ca.toString());
    }
}
