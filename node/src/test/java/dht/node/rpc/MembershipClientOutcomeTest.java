package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.sun.net.httpserver.HttpServer;
import dht.node.cluster.MembershipChangeException;
import dht.node.cluster.MembershipChangeException.Outcome;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a failed membership call left, as `bin/dht leave` and `remove` report it: a refusal changed
 * nothing unless the node marks the change under way; no connection changed nothing; a node that
 * took the request and never answered may have changed.
 */
class MembershipClientOutcomeTest {
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) server.stop(0);
    }

    private String serve(int status, String underWay) throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", x -> {
            byte[] body = "leaving: moving the data failed\n".getBytes(StandardCharsets.UTF_8);
            if (underWay != null) x.getResponseHeaders().set(InternalProtocol.CHANGE, underWay);
            x.getResponseHeaders().set(ClusterSecret.ANSWER_HEADER, MemberAnswer.UNSIGNED);
            x.sendResponseHeaders(status, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private static MembershipChangeException leave(String node, Duration timeout) {
        return catchThrowableOfType(MembershipChangeException.class,
                () -> new MembershipClient(timeout, null, null).call(node, "leave", "url=x", new byte[0]));
    }

    @Test
    void aRefusalMarkedUnderWayLeftTheChangeGoingOn() throws Exception {
        MembershipChangeException e = leave(serve(503, InternalProtocol.CHANGE_UNDER_WAY), Duration.ofSeconds(5));
        assertThat(e.status()).isEqualTo(503);
        assertThat(e.outcome()).isEqualTo(Outcome.UNDER_WAY);
    }

    @Test
    void aPlainRefusalChangedNothing() throws Exception {
        assertThat(leave(serve(409, null), Duration.ofSeconds(5)).outcome()).isEqualTo(Outcome.NOTHING_CHANGED);
        stop();
        assertThat(leave(serve(503, null), Duration.ofSeconds(5)).outcome()).isEqualTo(Outcome.NOTHING_CHANGED);
    }

    @Test
    void anotherFailureMayHaveComeAfterTheChange() throws Exception {
        assertThat(leave(serve(500, null), Duration.ofSeconds(5)).outcome()).as("a node's internal error").isEqualTo(Outcome.UNKNOWN);
        stop();
        assertThat(leave(serve(504, null), Duration.ofSeconds(5)).outcome()).as("a proxy's timeout").isEqualTo(Outcome.UNKNOWN);
    }

    @Test
    void aNodeNoOneListensAtChangedNothing() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        MembershipChangeException e = leave("http://127.0.0.1:" + port, Duration.ofSeconds(5));
        assertThat(e.status()).isEqualTo(503);
        assertThat(e.outcome()).isEqualTo(Outcome.NOTHING_CHANGED);
    }

    @Test
    void aNodeThatTookTheRequestAndNeverAnsweredMayHaveChanged() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            MembershipChangeException e = leave("http://127.0.0.1:" + silent.getLocalPort(), Duration.ofMillis(300));
            assertThat(e.status()).isEqualTo(503);
            assertThat(e.outcome()).isEqualTo(Outcome.UNKNOWN);
        }
    }
}
