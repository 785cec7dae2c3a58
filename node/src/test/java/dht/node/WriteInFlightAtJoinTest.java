package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.Placement;
import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write on its way to a member's store when a node joins reaches the joiner: the member's join
 * stream waits for it before it reads the store. A node started alone (one copy of each key) takes
 * a write of a key the joiner will own, and its store holds that write back while a node joins. Without the wait, the stream passed the key before the write landed,
 * the join ended, and the key was on the old member only, whose reads the joiner answers: 404 for
 * an acknowledged write.
 */
class WriteInFlightAtJoinTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** The first member's store. */
    DelegatingStore held;

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private HttpRequest request(String url, String method, String pathAndQuery, String body) {
        return HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(30)).build();
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery, String body) throws Exception {
        return http.send(request(url, method, pathAndQuery, body), HttpResponse.BodyHandlers.ofString());
    }

    private boolean joined(String url) throws Exception {
        return send(url, "GET", "/v0/status", null).body().contains("\"joining\":[]");
    }

    @Test
    void aWriteHeldOnItsWayToTheOnlyCopyWhileANodeJoinsReachesTheJoiner() throws Exception {
        int portA = TestPorts.free();
        String a = "http://localhost:" + portA;
        startHolding(portA, List.of(a));
        heldWriteReachesTheJoiner(List.of(a), a, Duration.ofSeconds(3));
        // A peer's write held the same way is not tried here: in a member with peers the write
        // holds the hash trees' gate, which the join's new version waits for, and the joiner's
        // first call (the member's status) waits behind that, so the stream cannot pass the key.
        // WritesInFlightTest has the replica side's count.
    }

    /** The first member, its store behind a gate; replication factor 1. */
    private void startHolding(int port, List<String> members) throws Exception {
        nodes.add(Node.start(InProcessNodeConfigs.of(port, dir.resolve("a"), members, 1, null),
                c -> held = new DelegatingStore(NodeWiring.openStore(c)), NodeWiring::startCluster));
    }

    /**
     * Writes through {@code via} a key the first member holds and a joiner will own, held in the
     * first member's store while the joiner joins; then reads it through every node once the
     * join has ended (or {@code hold} has passed, if it has not).
     */
    private void heldWriteReachesTheJoiner(List<String> members, String via, Duration hold) throws Exception {
        String holder = members.getFirst();
        for (int k = 0; k < 50; k++) assertThat(send(via, "PUT", "/v0/entity?id=before" + k, "v" + k).statusCode()).isEqualTo(201);
        int port = TestPorts.free();
        String joiner = "http://localhost:" + port;
        List<String> after = new ArrayList<>(members);
        after.add(joiner);
        // A key on the held member now and the joiner's alone once it is a member (one copy).
        String key = null;
        Placement now = new Placement(members);
        Placement then = new Placement(after);
        for (int i = 0; key == null; i++) {
            byte[] k = ("held" + i).getBytes(StandardCharsets.UTF_8);
            if (now.replicas(k, 1).getFirst().equals(holder) && then.replicas(k, 1).getFirst().equals(joiner)) key = "held" + i;
        }

        held.entered.drainPermits(); // the writes above passed the gate too
        held.hold();
        CompletableFuture<HttpResponse<String>> put = http.sendAsync(request(via, "PUT", "/v0/entity?id=" + key, "acknowledged"),
                HttpResponse.BodyHandlers.ofString());
        assertThat(held.entered.tryAcquire(10, TimeUnit.SECONDS)).as("the write reached the store's gate").isTrue();
        nodes.add(Node.start(InProcessNodeConfigs.of(port, dir.resolve("joiner"), List.of(joiner), 0, holder)));
        // Long enough for a join of 50 small keys to end if nothing holds it; the stream's wait does.
        long deadline = System.nanoTime() + hold.toNanos();
        while (!joined(joiner) && System.nanoTime() < deadline) Thread.sleep(50);
        held.open();
        assertThat(put.get(20, TimeUnit.SECONDS).statusCode()).as("the held write is acknowledged").isEqualTo(201);

        deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!allJoined(after) && System.nanoTime() < deadline) Thread.sleep(50);
        assertThat(allJoined(after)).as("the join ended").isTrue();
        assertThat(send(holder, "GET", "/v0/status", null).body()).as("the wait is shown")
                .contains("\"writesInFlight\":0", "\"moveWaitsTimedOut\":");
        for (String url : after) {
            assertThat(send(url, "GET", "/v0/entity?id=" + key, null).body()).as("read through " + url).isEqualTo("acknowledged");
        }
        assertThat(send(joiner, "GET", "/v0/entities?scope=local&start=" + key + "&end=" + key + "%00", null).body())
                .as("the joiner holds its copy").contains("acknowledged");
        for (int k = 0; k < 50; k++) assertThat(send(joiner, "GET", "/v0/entity?id=before" + k, null).body()).isEqualTo("v" + k);
    }

    private boolean allJoined(List<String> urls) throws Exception {
        for (String url : urls) if (!joined(url)) return false;
        return true;
    }
}
