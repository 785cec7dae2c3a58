package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.node.rpc.TlsProvider;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --tls-provider} as {@code bin/dht serve} reads it beside {@code --tls-cert} and {@code --tls-key}. */
class TlsProviderOptionTest {
    @TempDir
    Path dir;

    /** A self-signed certificate for localhost and its PKCS#8 key, made with openssl. */
    private String[] tlsArgs(String... more) throws Exception {
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "node.key",
                "-out", "node.pem", "-days", "2", "-subj", "/CN=localhost").directory(dir.toFile()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0).isTrue();
        String[] base = {"--self", "https://localhost:1", "--tls-cert", dir.resolve("node.pem").toString(),
                "--tls-key", dir.resolve("node.key").toString()};
        String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    @Test
    void withoutTheFlagTheProviderIsAuto() throws Exception {
        assertThat(ServeArgs.parsed(tlsArgs()).config().tls().provider()).isEqualTo(TlsProvider.AUTO);
    }

    @Test
    void theJdkEngineCanBeChosen() throws Exception {
        assertThat(ServeArgs.parsed(tlsArgs("--tls-provider", "jdk")).config().tls().provider()).isEqualTo(TlsProvider.JDK);
    }

    @Test
    void anUnknownEngineIsRefused() throws Exception {
        ServeCommand c = ServeArgs.parsed(tlsArgs("--tls-provider", "rustls"));
        assertThatThrownBy(c::config).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--tls-provider must be auto, openssl or jdk");
    }

    @Test
    void theFlagWithoutTlsIsRefused() {
        ServeCommand c = ServeArgs.parsed("--self", "http://localhost:1", "--tls-provider", "jdk");
        assertThatThrownBy(c::config).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--tls-provider needs --tls-cert");
    }
}
