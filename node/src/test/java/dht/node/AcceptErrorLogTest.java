package dht.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A failed accept stops at the node's own handler (one log line), not at Netty's tail (a warning with a stack trace each time). */
class AcceptErrorLogTest {
    @TempDir
    Path dir;

    @Test
    void failedAcceptsDoNotReachTheEndOfThePipeline() {
        EmbeddedChannel ch = new EmbeddedChannel(new AcceptErrorLog());
        for (int i = 0; i < 3; i++) ch.pipeline().fireExceptionCaught(new IOException("accept(..) failed: Too many open files"));
        assertThatCode(ch::checkException).doesNotThrowAnyException();
        ch.close();
    }

    @Test
    void theListeningSocketOfANodeEndsWithIt() throws Exception {
        try (TestNode node = TestNode.start(dir)) {
            var names = node.node.listeningChannel().pipeline().names();
            assertThat(names).contains("accept-errors");
            assertThat(names.get(names.size() - 2)).as("last before Netty's tail").isEqualTo("accept-errors");
        }
    }
}
