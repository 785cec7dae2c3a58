package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.Membership;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator that missed a membership commit does not answer by the version before: four
 * in-process nodes (replication factor 2), a version without the fourth committed to every node
 * but the first, then requests through the first at once, long before its periodic pull (every
 * 2 s). The replicas on the newer version refuse its calls, it learns that version from them and
 * asks again under it. Without the fence its read answered the old replicas' value and its write
 * reached the node that is no longer a replica.
 */
class MissedCommitTest {
    @TempDir
    Path dir;
    final List<Node> nodes = new ArrayList<>();
    final List<String> urls = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** The node that misses the commit, and the one the newer version drops. */
    String stale;
    String dropped;

    /** Four nodes with this replication factor; the first is the one that will miss the commit. */
    private void start(int replicationFactor) throws Exception {
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free(), TestPorts.free());
        for (int p : ports) urls.add("http://localhost:" + p);
        for (int i = 0; i < 4; i++) {
            nodes.add(Node.start(InProcessNodeConfigs.of(ports.get(i), dir.resolve("n" + i), urls, replicationFactor, null)));
        }
        stale = urls.get(0);
        dropped = urls.get(3);
    }

    @AfterEach
    void stop() {
        for (Node n : nodes) n.close();
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery, String body, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(20));
        if (headers.length > 0) b.headers(headers);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A key whose replicas are the dropped node and one other, and after the drop that other and a third: not the stale node. */
    private String keyMovedAwayFromTheDroppedNode(String prefix) {
        Placement before = new Placement(urls);
        for (int i = 0; ; i++) {
            String key = prefix + i;
            List<String> order = before.order(key.getBytes(StandardCharsets.UTF_8));
            if (order.subList(0, 2).contains(dropped) && order.get(3).equals(stale)) return key;
        }
    }

    /** Version 2, without the dropped node, committed to every node but the stale one. */
    private void commitTheDropToAllButTheStaleNode() throws Exception {
        commitTheDropTo(urls.subList(1, 4));
    }

    /**
     * Version 2, without the dropped node, committed to {@code nodes} alone. The dropped node
     * takes it too in these tests (a live node that a removal drops): it then refuses calls placed
     * by version 1, as any node on version 2 does.
     */
    private void commitTheDropTo(List<String> nodes) throws Exception {
        Membership v1 = Membership.decode(send(urls.get(1), "GET", "/internal/v0/membership?op=get", null).body());
        assertThat(v1.version()).isEqualTo(1);
        Membership v2 = v1.without(dropped);
        for (String u : nodes) {
            assertThat(send(u, "POST", "/internal/v0/membership?op=commit&id=fence-test", v2.encode()).statusCode())
                    .as("commit on %s", u).isEqualTo(200);
        }
    }

    /** Writes a version straight into one node's store (an internal write names no membership version). */
    private void store(String url, String key, String value, long timestamp) throws Exception {
        assertThat(send(url, "PUT", "/internal/v0/entity?id=" + key, value, "X-Dht-Timestamp", Long.toString(timestamp))
                .statusCode()).isEqualTo(201);
    }

    private boolean holds(String url, String key) throws Exception {
        HttpResponse<String> r = send(url, "GET", "/internal/v0/entity?id=" + key, null);
        assertThat(r.statusCode()).isIn(200, 404);
        return r.statusCode() == 200;
    }

    private long membershipVersionOf(String url) throws Exception {
        return Membership.decode(send(url, "GET", "/internal/v0/membership?op=get", null).body()).version();
    }

    @Test
    void aReadThroughANodeThatMissedTheCommitIsAnsweredByTheNewReplicas() throws Exception {
        start(2);
        String key = keyMovedAwayFromTheDroppedNode("read");
        List<String> order = new Placement(urls).order(key.getBytes(StandardCharsets.UTF_8));
        String newReplica = order.get(2); // a replica after the drop, not before it
        long t = System.currentTimeMillis() * 1000;
        for (String u : order.subList(0, 2)) store(u, key, "old", t);
        store(newReplica, key, "new", t + 1000);
        assertThat(send(stale, "GET", "/v0/entity?id=" + key, null).body()).as("on version 1").isEqualTo("old");

        commitTheDropToAllButTheStaleNode();
        HttpResponse<String> read = send(stale, "GET", "/v0/entity?id=" + key, null);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).as("read through the node that missed version 2").isEqualTo("new");
        assertThat(membershipVersionOf(stale)).isEqualTo(2);
    }

    /** The same for {@code repair=all}: it reads and repairs the new replicas, not the old ones. */
    @Test
    void aFullRepairThroughANodeThatMissedTheCommitRepairsTheNewReplicas() throws Exception {
        start(2);
        String key = keyMovedAwayFromTheDroppedNode("repair");
        List<String> order = new Placement(urls).order(key.getBytes(StandardCharsets.UTF_8));
        String newReplica = order.get(2);
        String stays = order.get(0).equals(dropped) ? order.get(1) : order.get(0); // a replica before and after
        long t = System.currentTimeMillis() * 1000;
        for (String u : order.subList(0, 2)) store(u, key, "old", t);
        store(newReplica, key, "new", t + 1000);
        commitTheDropToAllButTheStaleNode();

        HttpResponse<String> repaired = send(stale, "GET", "/v0/entity?id=" + key + "&repair=all", null);
        assertThat(repaired.statusCode()).isEqualTo(200);
        assertThat(repaired.body()).as("repair=all through the node that missed version 2").isEqualTo("new");
        assertThat(repaired.headers().firstValue("X-Dht-Repair")).hasValue("sent=1 failed=0 unreachable=0");
        assertThat(send(stays, "GET", "/internal/v0/entity?id=" + key, null).body()).as("the replica that stays, repaired")
                .isEqualTo("new");
        assertThat(membershipVersionOf(stale)).isEqualTo(2);
    }

    @Test
    void aWriteThroughANodeThatMissedTheCommitReachesOnlyTheNewReplicas() throws Exception {
        start(2);
        String key = keyMovedAwayFromTheDroppedNode("write");
        List<String> order = new Placement(urls).order(key.getBytes(StandardCharsets.UTF_8));
        commitTheDropToAllButTheStaleNode();

        assertThat(send(stale, "PUT", "/v0/entity?id=" + key, "v").statusCode()).isEqualTo(201);
        assertThat(holds(dropped, key)).as("the dropped node refused the write").isFalse();
        List<String> replicas = new ArrayList<>(order.subList(0, 3));
        replicas.remove(dropped);
        for (String u : replicas) assertThat(holds(u, key)).as("a replica on version 2: %s", u).isTrue();
        assertThat(membershipVersionOf(stale)).isEqualTo(2);
    }

    @Test
    void aReplicaRefusesACallPlacedByAnOlderVersionAndAppliesNothing() throws Exception {
        start(2);
        commitTheDropToAllButTheStaleNode();
        String replica = urls.get(1);
        long t = System.currentTimeMillis() * 1000;
        HttpResponse<String> refused = send(replica, "PUT", "/internal/v0/entity?id=fenced", "v",
                "X-Dht-Timestamp", Long.toString(t), "X-Dht-Membership", "1");
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.headers().firstValue("X-Dht-Membership")).hasValue("2");
        assertThat(holds(replica, "fenced")).isFalse();
        assertThat(send(replica, "PUT", "/internal/v0/entity?id=fenced", "v",
                "X-Dht-Timestamp", Long.toString(t), "X-Dht-Membership", "2").statusCode()).isEqualTo(201);
        assertThat(send(replica, "GET", "/internal/v0/entity?id=fenced", null, "X-Dht-Membership", "x").statusCode())
                .as("a malformed version").isEqualTo(400);
    }

    /**
     * Two nodes miss the commit, so a write through one of them reaches {@code ack} (2 of 3) on the
     * two of them while the third replica, on the newer version, refuses it: that replica is still
     * one of the key's under the newer version, and must get the write all the same.
     */
    @Test
    void aReplicaThatRefusedAWriteWhichReachedAckWithoutItStillGetsIt() throws Exception {
        start(3);
        String alsoStale = urls.get(1);
        String upToDate = urls.get(2);
        Placement before = new Placement(urls);
        String key = null;
        for (int i = 0; key == null; i++) {
            List<String> order = before.order(("late" + i).getBytes(StandardCharsets.UTF_8));
            if (order.get(3).equals(dropped)) key = "late" + i; // the same three replicas on both versions
        }
        commitTheDropTo(List.of(upToDate, dropped));

        assertThat(send(stale, "PUT", "/v0/entity?id=" + key, "v").statusCode()).isEqualTo(201);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!holds(upToDate, key) && System.nanoTime() < deadline) Thread.sleep(50);
        assertThat(holds(upToDate, key)).as("the replica that refused the write placed by version 1").isTrue();
        assertThat(holds(alsoStale, key)).isTrue();
        assertThat(holds(dropped, key)).isFalse();
    }
}
