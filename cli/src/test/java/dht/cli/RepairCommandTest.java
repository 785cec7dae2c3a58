package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The pieces of {@code dht repair} that need no node: how it names a key, and how it reads the cluster. */
class RepairCommandTest {
    @Test
    void aKeyIsSentAsItsExactBytesWithoutEncodingWhatAQueryMayHold() {
        String key = "a/b:c@d!e*f,g;h$i-j.k_l~m";
        assertThat(ClientOptions.encode(key.getBytes(StandardCharsets.UTF_8))).isEqualTo(key);
        assertThat(ClientOptions.encode("x+y&z=1%#é \0".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("x%2By%26z%3D1%25%23%C3%A9%20%00");
        byte[] odd = {(byte) 0xff, 0, '/'};
        assertThat(ClientOptions.encode(odd)).isEqualTo("%FF%00/");
        assertThat(URLDecoder.decode(ClientOptions.encode("x+y".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8)).isEqualTo("x+y");
    }

    @Test
    void theClusterIsReadFromTheStatusEvenWithBracketsInAUrl() {
        String status = "{\"node\":\"http://[::1]:8081\",\"cluster\":[\"http://[::1]:8080\",\"http://[::1]:8081\",\"http://h:1\"],"
                + "\"peers\":{\"http://[::1]:8080\":\"up\"}}";
        assertThat(RepairCommand.cluster(status)).containsExactly("http://[::1]:8080", "http://[::1]:8081", "http://h:1");
        assertThat(RepairCommand.cluster("{\"cluster\":[]}")).isEmpty();
        assertThat(RepairCommand.cluster("{}")).isEmpty();
    }
}
