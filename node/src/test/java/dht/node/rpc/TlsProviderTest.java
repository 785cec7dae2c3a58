package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import org.junit.jupiter.api.Test;

class TlsProviderTest {
    @Test
    void parsesTheThreeNamesInAnyCase() {
        assertThat(TlsProvider.parse("auto")).isEqualTo(TlsProvider.AUTO);
        assertThat(TlsProvider.parse("OpenSSL")).isEqualTo(TlsProvider.OPENSSL);
        assertThat(TlsProvider.parse("JDK")).isEqualTo(TlsProvider.JDK);
        assertThatThrownBy(() -> TlsProvider.parse("boringssl"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("auto, openssl or jdk");
    }

    /** The build ships BoringSSL for Linux x86-64: there, auto must pick it (a lost dependency fails here). */
    @Test
    void autoPicksBoringSslOnLinuxX86() {
        assumeTrue(System.getProperty("os.name").startsWith("Linux") && System.getProperty("os.arch").equals("amd64"));
        assertThat(OpenSsl.isAvailable()).as("BoringSSL: %s", OpenSsl.unavailabilityCause()).isTrue();
        assertThat(TlsProvider.AUTO.engine()).isEqualTo(SslProvider.OPENSSL);
        assertThat(TlsProvider.AUTO.describe()).startsWith("BoringSSL through netty-tcnative");
        assertThat(TlsProvider.JDK.engine()).isEqualTo(SslProvider.JDK);
        assertThat(TlsProvider.JDK.describe()).startsWith("the JDK's engine");
    }

    @Test
    void filesWithoutAProviderGetAuto() {
        assertThat(new TlsFiles(null, null, null).provider()).isEqualTo(TlsProvider.AUTO);
        assertThat(new TlsFiles(null, null, null, null).provider()).isEqualTo(TlsProvider.AUTO);
    }
}
