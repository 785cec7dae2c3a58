package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.Placement;
import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Anti-entropy follows the agreed membership with no restart, between real {@code dht serve}
 * processes with hinted handoff off: once a fourth node has joined, a key written to one replica
 * alone reaches the new node (and its other replica, and no other node) without any client read,
 * and the status lists the new node among the peers exchanged with.
 */
class MembershipAntiEntropyProcessTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    /** Writes {@code value} to {@code n}'s own store through the replica path, as a coordinator would: no other node gets it. */
    private void writeToOneReplica(NodeProcess n, String key, String value) throws Exception {
        long timestamp = System.currentTimeMillis() * 1_000; // the cluster clock's microseconds
        int status = cluster.http.send(HttpRequest.newBuilder(URI.create(n.url() + "/internal/v0/entity?id=" + key))
                .header("X-Dht-Timestamp", Long.toString(timestamp)).PUT(HttpRequest.BodyPublishers.ofString(value))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        assertThat(status).as("replica write of " + key).isBetween(200, 299);
    }

    @Test
    void aNodeThatJoinedGetsWhatOneReplicaHoldsThroughAntiEntropyAlone() throws Exception {
        List<String> fast = List.of("--anti-entropy-interval", "1000");
        NodeProcess.startCluster(cluster.nodes, tmp, 3, fast, AntiEntropyProcessTest.NO_HINTS);
        for (int k = 0; k < 100; k++) {
            assertThat(cluster.requests.setUp(cluster.nodes.get(k % 3), "key" + k, "v" + k, 3, 3)).isEqualTo(201);
        }
        NodeProcess fourth = new NodeProcess(TestPorts.free(), tmp.resolve("n3"),
                List.of("--join", cluster.nodes.get(0).url(), "--anti-entropy-interval", "1000"));
        cluster.nodes.add(fourth);
        fourth.startAndAwait(AntiEntropyProcessTest.NO_HINTS);
        assertThat(NodeStatus.await(cluster.nodes, "\"membershipVersion\":3", Duration.ofSeconds(60)))
                .as("every node on the version where the fourth is a member").isTrue();
        assertThat(NodeStatus.of(fourth)).contains("\"joining\":[]");

        // Keys whose replicas among the four members are the first node, the new one and one more.
        NodeProcess first = cluster.nodes.get(0);
        Placement placement = new Placement(cluster.nodes.stream().map(NodeProcess::url).toList());
        List<String> planted = new ArrayList<>();
        for (int i = 0; planted.size() < 20; i++) {
            String key = "planted" + i;
            List<String> replicas = placement.replicas(key.getBytes(StandardCharsets.UTF_8), 3);
            if (replicas.contains(first.url()) && replicas.contains(fourth.url())) planted.add(key);
        }
        for (String key : planted) writeToOneReplica(first, key, "only-on-the-first-" + key);
        assertThat(cluster.requests.local(fourth)).doesNotContainKeys(planted.toArray(String[]::new));

        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Map<String, String> onFourth = cluster.requests.local(fourth);
        while (!onFourth.keySet().containsAll(planted) && System.nanoTime() < deadline) {
            Thread.sleep(250);
            onFourth = cluster.requests.local(fourth);
        }
        for (String key : planted) {
            assertThat(onFourth).as("the new member, through anti-entropy alone").containsEntry(key, "only-on-the-first-" + key);
        }
        // Each planted key on its three replicas and on no other node.
        for (String key : planted) {
            List<String> replicas = placement.replicas(key.getBytes(StandardCharsets.UTF_8), 3);
            for (NodeProcess n : cluster.nodes) {
                boolean replica = replicas.contains(n.url());
                deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (cluster.requests.local(n).containsKey(key) != replica && System.nanoTime() < deadline) Thread.sleep(250);
                assertThat(cluster.requests.local(n).containsKey(key)).as(key + " on " + n.url()).isEqualTo(replica);
            }
        }
        // The first node's status lists the new member among its anti-entropy peers, with exchanges.
        Pattern exchanged = Pattern.compile(Pattern.quote("\"" + fourth.url() + "\":{\"lastExchangeMillis\":")
                + "[1-9][0-9]*,\"lastExchangeDurationMillis\":[0-9]+,\"lastFullExchangeScanMillis\":[1-9][0-9]*,\"exchanges\":[1-9]");
        deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!exchanged.matcher(NodeStatus.of(first)).find() && System.nanoTime() < deadline) Thread.sleep(250);
        assertThat(NodeStatus.of(first)).containsPattern(exchanged);
        assertThat(NodeStatus.of(fourth)).containsPattern(Pattern.compile(Pattern.quote("\"" + first.url()
                + "\":{\"lastExchangeMillis\":") + "[1-9]"));
    }
}
