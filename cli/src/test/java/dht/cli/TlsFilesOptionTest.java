package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.testkit.TestCa;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --tls-cert} and {@code --tls-key} are checked before the node starts: a key of another
 * pair, which the TLS engine took and then failed every handshake with (a node never ready), and a
 * file that is not there, said as such (was: "does not contain valid certificates").
 */
class TlsFilesOptionTest {
    @TempDir
    Path dir;

    /** A self-signed certificate for localhost, {@code name}.pem, and its PKCS#8 key, {@code name}.key. */
    private void pair(String name, String... newKey) throws Exception {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("req", "-x509"));
        args.addAll(java.util.List.of(newKey));
        args.addAll(java.util.List.of("-nodes", "-keyout", name + ".key", "-out", name + ".pem", "-days", "2",
                "-subj", "/CN=localhost"));
        TestCa.openssl(dir, args.toArray(String[]::new));
    }

    private ServeCommand serve(String cert, String key) {
        return ServeArgs.parsed("--self", "https://localhost:1", "--tls-cert", dir.resolve(cert).toString(),
                "--tls-key", dir.resolve(key).toString());
    }

    @Test
    void aKeyOfAnotherPairIsRefused() throws Exception {
        pair("a", "-newkey", "rsa:2048");
        pair("b", "-newkey", "rsa:2048");
        assertThat(serve("a.pem", "a.key").config().tls()).isNotNull();
        assertThatThrownBy(() -> serve("a.pem", "b.key").config()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the key does not belong to the certificate");
    }

    @Test
    void anEcKeyOfAnotherPairIsRefusedAndItsOwnTaken() throws Exception {
        pair("c", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1");
        pair("d", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1");
        assertThat(serve("c.pem", "c.key").config().tls()).isNotNull();
        assertThatThrownBy(() -> serve("c.pem", "d.key").config()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the key does not belong to the certificate");
    }

    @Test
    void aFileThatIsNotThereIsSaidSo() throws Exception {
        pair("a", "-newkey", "rsa:2048");
        assertThatThrownBy(() -> serve("nothere.pem", "a.key").config()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--tls-cert " + dir.resolve("nothere.pem") + ": no such file");
        assertThatThrownBy(() -> serve("a.pem", "nothere.key").config()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--tls-key " + dir.resolve("nothere.key") + ": no such file");
    }
}
