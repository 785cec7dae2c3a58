package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start-up refusals that say what is wrong: {@code --join} naming the node's own URL (it used
 * to wait for an answer from itself and time out), or beside a {@code --cluster}, and a directory
 * given as the cluster secret file (it used to say "no such file").
 */
class JoinAndSecretOptionsTest {
    @TempDir
    Path dir;

    @Test
    void joiningThroughItselfIsRefused() {
        assertThatThrownBy(ServeArgs.parsed("--self", "http://a:1", "--join", "http://a:1/")::config)
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("this node's own URL");
        assertThat(ServeArgs.parsed("--self", "http://a:1", "--join", "http://b:2").config().join()).isEqualTo("http://b:2");
    }

    /** A joining node learns the members: a --cluster beside --join, even of itself alone, is bad usage. */
    @Test
    void joiningWithAClusterListIsRefused() {
        assertThatThrownBy(ServeArgs.parsed("--port", "19300", "--cluster", "http://localhost:19300", "--join", "http://b:2")::config)
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--join and --cluster go alone");
    }

    @Test
    void aDirectoryIsNoSecretFile() {
        assertThatThrownBy(() -> ClusterSecretFile.read(dir)).isInstanceOf(ClusterSecretFile.Refused.class)
                .hasMessageContaining("is a directory");
        assertThatThrownBy(() -> ClusterSecretFile.read(dir.resolve("absent")))
                .isInstanceOf(ClusterSecretFile.Refused.class).hasMessageContaining("no such file");
    }
}
