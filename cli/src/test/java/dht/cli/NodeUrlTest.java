package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Node URLs are spelled one way, so that --self finds itself in --cluster however either was typed. */
class NodeUrlTest {
    @Test
    void schemeAndHostAreCaseInsensitiveAndATrailingSlashIsDropped() {
        assertThat(ServeCommand.normalize("HTTP://LocalHost:8080/")).isEqualTo("http://localhost:8080");
        assertThat(ServeCommand.normalize(" http://a:1// ")).isEqualTo("http://a:1");
        assertThat(ServeCommand.normalize("http://Host")).isEqualTo("http://host");
        assertThat(ServeCommand.normalize("http://[::1]:8080")).isEqualTo("http://[::1]:8080");
    }

    /** What is not a node's address is refused before anything starts, with the reason. */
    @Test
    void aPortOutOfRangeAPathOrAMalformedHostIsRefused() {
        for (String bad : new String[] {"http://localhost:99999", "http://localhost:0", "http://a b:1", "http://localhost:8080/foo",
                "http://localhost:8080?x=1", "http://user@localhost:8080", "http://:8080", "http://localhost:port"}) {
            assertThatThrownBy(() -> ServeCommand.normalize(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(bad.strip());
        }
    }

    @Test
    void anythingButHttpIsRefused() {
        assertThatThrownBy(() -> ServeCommand.normalize("ftp://a:1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http://host:port");
        // https:// only for a node that speaks it (--tls-cert and --tls-key)
        ServeCommand c = new ServeCommand();
        new picocli.CommandLine(c).parseArgs("--port", "8081", "--self", "https://localhost:8081");
        assertThatThrownBy(c::config).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--tls-cert");
        assertThatThrownBy(() -> ServeCommand.normalize("a:1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void selfSpelledInUpperCaseIsStillInTheCluster() {
        ServeCommand c = new ServeCommand();
        new picocli.CommandLine(c).parseArgs("--port", "8081", "--self", "http://LOCALHOST:8081",
                "--cluster", "http://localhost:8081,http://Other:8082/");
        assertThat(c.config().self()).isEqualTo("http://localhost:8081");
        assertThat(c.config().cluster()).containsExactly("http://localhost:8081", "http://other:8082");
    }

    /** {@code --cluster $A,$B,$C} with $B unset must not start a node that computes a two-node placement. */
    @Test
    void anEmptyItemInTheClusterIsRefused() {
        for (String list : new String[] {"http://a:1,,http://b:2", "http://a:1,http://b:2,", ",http://a:1,http://b:2"}) {
            ServeCommand c = new ServeCommand();
            new picocli.CommandLine(c).parseArgs("--self", "http://a:1", "--cluster", list);
            assertThatThrownBy(c::config).as(list).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--cluster has an empty item");
        }
    }
}
