package dht.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import org.junit.jupiter.api.Test;

/**
 * The event loops' kind: the one {@code -Ddht.io.transport} asks for where the platform has it,
 * else the next one down (io_uring, then epoll, then NIO), never a start that fails for it.
 */
class TransportTest {
    @Test
    void ioUringWhereTheKernelAllowsItElseEpoll() {
        String expected = IoUring.isAvailable() ? "io_uring" : Epoll.isAvailable() ? "epoll" : "nio";
        assertThat(Transport.choose("io_uring", 0).name()).isEqualTo(expected);
    }

    @Test
    void epollWhenAskedForIt() {
        assertThat(Transport.choose("epoll", 0).name()).isEqualTo(Epoll.isAvailable() ? "epoll" : "nio");
    }

    /** The setting reaches the node: its status names the loops it runs on. */
    @Test
    void aNodeRunsOnTheTransportItWasGiven(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        for (String kind : new String[] {"epoll", "io_uring"}) {
            String expected = Transport.choose(kind, 0).name();
            Tuning tuning = WithProperty.with(JvmSettings.TRANSPORT, kind, JvmSettings::read);
            try (TestNode node = TestNode.start(TestNode.config(dir.resolve(kind)).withTuning(tuning), s -> s)) {
                assertThat(node.put("/v0/entity?id=k", "v").statusCode()).isEqualTo(201);
                assertThat(new String(node.get("/v0/entity?id=k").body(), UTF_8)).isEqualTo("v");
                assertThat(new String(node.get("/v0/status").body(), UTF_8)).contains("\"transport\":\"" + expected + "\"");
            }
        }
    }
}
