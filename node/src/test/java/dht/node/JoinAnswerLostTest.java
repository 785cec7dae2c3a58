package dht.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.node.cluster.MembershipFile;
import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A join the members agreed on but whose joiner never kept it (it crashed before, or the answer
 * was lost): started again with {@code --join} on the directory that asked, the node goes on with
 * that join; another directory claiming the same URL is refused, and the cluster is left as it was.
 */
class JoinAnswerLostTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final List<String> urls = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, method.equals("PUT") ? HttpRequest.BodyPublishers.ofString("v") : HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Three members, keys key0..key99 on each. */
    private void threeMembersHoldingKeys() throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        for (int p : ports) urls.add("http://localhost:" + p);
        for (int i = 0; i < 3; i++) nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(i), dir.resolve("n" + i), urls, 0, null)));
        for (int k = 0; k < 100; k++) {
            assertThat(send(urls.get(k % 3), "PUT", "/v0/entity?id=key" + k + "&ack=3").statusCode()).isEqualTo(201);
        }
    }

    /** Waits until {@code joiner} has no join under way; its status then. */
    private String statusOnceJoined(String joiner) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String status = send(joiner, "GET", "/v0/status").body();
        while (!status.contains("\"joining\":[]") && System.nanoTime() < deadline) {
            Thread.sleep(100);
            status = send(joiner, "GET", "/v0/status").body();
        }
        return status;
    }

    @Test
    void aJoinerStartedAgainOnTheDirectoryThatAskedGoesOnWithTheAgreedJoin() throws Exception {
        int port = TestPorts.free();
        String joiner = "http://localhost:" + port;
        threeMembersHoldingKeys();
        // The members agree on the join (as if the joiner had asked), and the answer never arrives.
        HttpResponse<String> agreed = send(urls.get(1), "POST", "/internal/v0/membership?op=join&url=" + joiner);
        assertThat(agreed.statusCode()).as(agreed.body()).isEqualTo(200);

        Path other = dir.resolve("other");
        Files.createDirectories(other);
        assertThatThrownBy(() -> nodes.add(Node.start(InProcessNodeConfigs.of(port, other, List.of(joiner), 0, urls.get(0)))))
                .isInstanceOf(java.io.UncheckedIOException.class)
                .rootCause().hasMessageContaining(joiner + " is already a member");
        assertThat(other.resolve(MembershipFile.NAME)).doesNotExist();

        Path asked = dir.resolve("n3");
        Files.createDirectories(asked);
        Files.writeString(asked.resolve(MembershipFile.JOIN_ASKED), "2\n");
        nodes.add(Node.start(InProcessNodeConfigs.of(port, asked, List.of(joiner), 0, urls.get(0))));
        String status = statusOnceJoined(joiner);
        assertThat(status).contains("\"membershipVersion\":3", "\"joining\":[]");
        assertThat(asked.resolve(MembershipFile.JOIN_ASKED)).doesNotExist();
        for (int k = 0; k < 100; k += 9) {
            assertThat(send(joiner, "GET", "/v0/entity?id=key" + k).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aJoinerStartedAgainWithoutFlagsGoesOnWithTheJoinItsDirectoryAsked() throws Exception {
        int port = TestPorts.free();
        String joiner = "http://localhost:" + port;
        threeMembersHoldingKeys();
        HttpResponse<String> agreed = send(urls.get(1), "POST", "/internal/v0/membership?op=join&url=" + joiner);
        assertThat(agreed.statusCode()).as(agreed.body()).isEqualTo(200);

        // The joiner asked through urls[0] and stopped before it kept the agreed join; started
        // again as the docs say a member restarts: no --join. Before, it became a cluster of its own.
        Path asked = dir.resolve("n3");
        Files.createDirectories(asked);
        Files.writeString(asked.resolve(MembershipFile.JOIN_ASKED), UnfinishedJoin.mark(2, urls.get(0)));
        nodes.add(Node.start(InProcessNodeConfigs.of(port, asked, List.of(joiner), 0, null)));
        String status = statusOnceJoined(joiner);
        assertThat(status).contains("\"membershipVersion\":3", "\"joining\":[]", urls.get(0), urls.get(2));
        assertThat(asked.resolve(MembershipFile.JOIN_ASKED)).doesNotExist();
        for (int k = 0; k < 100; k += 9) {
            assertThat(send(joiner, "GET", "/v0/entity?id=key" + k).statusCode()).isEqualTo(200);
        }
        assertThat(send(joiner, "PUT", "/v0/entity?id=after&ack=3").statusCode()).isEqualTo(201);
        assertThat(send(urls.get(1), "GET", "/v0/entity?id=after").statusCode()).isEqualTo(200);
    }

    @Test
    void aMarkThatNamesNoMemberRefusesAStartWithoutJoinAndChangesNothing() throws Exception {
        int port = TestPorts.free();
        Path asked = dir.resolve("old");
        Files.createDirectories(asked);
        Files.writeString(asked.resolve(MembershipFile.JOIN_ASKED), "2\n"); // as versions before this one wrote it
        assertThatThrownBy(() -> nodes.add(Node.start(InProcessNodeConfigs.of(port, asked, List.of("http://localhost:" + port), 0, null))))
                .rootCause().hasMessageContaining("did not finish: start this node again with the same --join MEMBER_URL");
        assertThat(asked.resolve(MembershipFile.NAME)).doesNotExist();
        assertThat(asked.resolve(MembershipFile.JOIN_ASKED)).exists();
    }
}
