package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code --replication-factor} as {@code bin/dht serve} reads it against {@code --cluster}. */
class ReplicationFactorOptionTest {
    @Test
    void withoutTheFlagItIsTheNumberOfNodes() {
        ServeCommand c = ServeArgs.parsed("--self", "http://a:1", "--cluster", "http://a:1,http://b:2,http://c:3");
        assertThat(c.config().replicationFactor()).isEqualTo(3);
    }

    @Test
    void aFactorUpToTheClusterIsKept() {
        ServeCommand c = ServeArgs.parsed("--self", "http://a:1", "--cluster", "http://a:1,http://b:2,http://c:3",
                "--replication-factor", "2");
        assertThat(c.config().replicationFactor()).isEqualTo(2);
    }

    @Test
    void aFactorOutsideOneToTheClusterIsRefused() {
        for (String bad : new String[] {"4", "0", "-1"}) {
            ServeCommand c = ServeArgs.parsed("--self", "http://a:1", "--cluster", "http://a:1,http://b:2,http://c:3",
                    "--replication-factor", bad);
            assertThatThrownBy(c::config).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--replication-factor must be 1..3");
        }
    }
}
