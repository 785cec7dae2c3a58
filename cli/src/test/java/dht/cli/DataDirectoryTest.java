package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirectoryTest {
    @Test
    void dotSegmentsGoAndTheNameIsAbsolute() {
        Path cwd = Path.of("").toAbsolutePath();
        assertThat(DataDirectory.absolute(Path.of("./data"))).isEqualTo(cwd.resolve("data"));
        assertThat(DataDirectory.absolute(Path.of("/a/./b/."))).isEqualTo(Path.of("/a/b"));
    }

    /** "link/.." is the link target's parent: the name must still lead where the operating system goes. */
    @Test
    void dotDotStaysSoThatASymbolicLinkIsFollowedAsTheSystemDoes(@TempDir Path tmp) throws Exception {
        Path target = Files.createDirectories(tmp.resolve("elsewhere/deep"));
        Files.createDirectories(tmp.resolve("elsewhere/d"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), target);
        Path named = DataDirectory.absolute(link.resolve("../d"));
        assertThat(named.toString()).endsWith("link/../d");
        assertThat(named.toRealPath()).isEqualTo(tmp.resolve("elsewhere/d").toRealPath());
    }
}
