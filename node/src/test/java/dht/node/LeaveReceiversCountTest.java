package dht.node;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.cluster.Placement;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The members that take in a leaving node's data count it in their status ({@code rebalance}
 * {@code keysMoved}, {@code keysMovedIn}, {@code bytesMoved}): each exactly the keys it gains.
 * Before, a leave's pushes were plain write batches, which a receiver could not tell from a
 * coordinator's, and every receiver reported {@code keysMoved} 0 while {@code rebalancing} was true.
 */
class LeaveReceiversCountTest {
    static final int KEYS = 600;

    @TempDir
    Path dir;
    final InProcessMembers cluster = new InProcessMembers(4);

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void eachReceiverCountsTheKeysItGains() throws Exception {
        List<String> urls = cluster.urls;
        cluster.startAll(i -> InProcessNodeConfigs.of(cluster.ports.get(i), dir.resolve("n" + i), urls, 3, null));
        for (int k = 0; k < KEYS; k++) { // every copy written before the leave reads the store
            assertThat(cluster.send(urls.get(k % 4), "PUT", "/v0/entity?id=key" + k + "&ack=3", "v" + k).statusCode())
                    .isEqualTo(201);
        }
        String leaving = urls.getFirst();
        List<String> staying = urls.subList(1, 4);
        Placement before = new Placement(urls);
        Placement after = new Placement(staying);

        HttpResponse<String> left = cluster.leave(leaving).get(90, TimeUnit.SECONDS);
        assertThat(left.statusCode()).as(left.body()).isEqualTo(200);

        long pushed = cluster.field(leaving, "keysMoved");
        assertThat(cluster.field(leaving, "keysMovedIn")).as("the leaving node took nothing in").isZero();
        long received = 0;
        for (String member : staying) {
            long gains = 0;
            for (int k = 0; k < KEYS; k++) {
                byte[] key = ("key" + k).getBytes(StandardCharsets.UTF_8);
                if (after.replicas(key, 3).contains(member) && !before.replicas(key, 3).contains(member)) gains++;
            }
            assertThat(gains).as("a member gains keys").isPositive();
            assertThat(cluster.field(member, "keysMoved")).as("keys %s counts as taken in", member).isEqualTo(gains);
            assertThat(cluster.field(member, "keysMovedIn")).as("of them, taken in").isEqualTo(gains);
            assertThat(cluster.field(member, "bytesMoved")).as("bytes %s counts", member).isPositive();
            received += gains;
        }
        assertThat(received).as("what the members took in is what the leaving node pushed").isEqualTo(pushed);
    }
}
