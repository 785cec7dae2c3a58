package dht.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** One spelling of a node's URL for every tool, and what names no node. */
class NodeUrlTest {
    @Test
    void aNodeIsSpeltInLowerCaseWithoutTrailingSlashes() {
        assertThat(NodeUrl.normalise("HTTP://LocalHost:8080/")).isEqualTo("http://localhost:8080");
        assertThat(NodeUrl.normalise("  https://Node-1.example//  ")).isEqualTo("https://node-1.example");
        assertThat(NodeUrl.normalise("http://[::1]:9000")).isEqualTo("http://[::1]:9000");
        assertThat(NodeUrl.normalise("http://127.0.0.1:1")).isEqualTo("http://127.0.0.1:1");
    }

    @Test
    void anythingButSchemeHostAndPortIsRefused() {
        for (String url : List.of("localhost:8080", "ftp://h:1", "http://h:1/v0", "http://h:1?x=1", "http://h:1#x",
                "http://user@h:1", "http://", "http:h", "not a url", "")) {
            assertThatThrownBy(() -> NodeUrl.normalise(url)).as(url)
                    .isInstanceOfSatisfying(NodeUrl.RefusedException.class,
                            e -> assertThat(e.flaw()).isEqualTo(NodeUrl.Flaw.NOT_A_NODE_URL));
        }
    }

    @Test
    void aPortOutsideOneTo65535IsRefusedAsSuch() {
        for (String url : List.of("http://h:0", "http://h:65536", "http://h:99999", "http://h:")) {
            assertThatThrownBy(() -> NodeUrl.normalise(url)).as(url)
                    .isInstanceOfSatisfying(NodeUrl.RefusedException.class,
                            e -> assertThat(e.flaw()).isEqualTo(NodeUrl.Flaw.PORT_OUT_OF_RANGE));
        }
        assertThat(NodeUrl.normalise("http://h:65535")).isEqualTo("http://h:65535");
    }
}
