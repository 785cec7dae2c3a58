package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.TestLoops;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pooled connection to a peer is taken again while it has sat unused for less than the reuse
 * limit, and not after: the peer may be closing it for its idle timeout, and a call sent on it then
 * would fail. The pool alone, so that no failure-detector probe uses the connection meanwhile.
 */
class PeerConnectionReuseTest {
    private ServerSocket peer;
    private EventLoopGroup loops;
    private PeerPool pool;

    @BeforeEach
    void start() throws Exception {
        peer = new ServerSocket();
        peer.bind(new InetSocketAddress("127.0.0.1", 0), 16); // the kernel accepts; nothing need be read
        loops = TestLoops.start(1);
        pool = new PeerPool(Duration.ofSeconds(2), loops, null, Duration.ofMillis(1_500));
    }

    @AfterEach
    void stop() throws Exception {
        pool.close();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        peer.close();
    }

    @Test
    void aConnectionUnusedPastTheLimitIsNotTakenAgain() throws Exception {
        PeerPool.Lane lane = pool.open("127.0.0.1", peer.getLocalPort()).lane();
        Channel first = lane.pool.acquire().get(5, TimeUnit.SECONDS);
        lane.pool.release(first).get(5, TimeUnit.SECONDS);
        Channel again = lane.pool.acquire().get(5, TimeUnit.SECONDS);
        assertThat(again).as("taken again at once").isSameAs(first);
        lane.pool.release(again).get(5, TimeUnit.SECONDS);

        Thread.sleep(3_000);
        Channel later = lane.pool.acquire().get(5, TimeUnit.SECONDS);
        assertThat(later).as("a new connection after 3 s unused").isNotSameAs(first);
        assertThat(first.closeFuture().await(5, TimeUnit.SECONDS)).as("the stale one closed").isTrue();
        lane.pool.release(later).get(5, TimeUnit.SECONDS);
    }
}
