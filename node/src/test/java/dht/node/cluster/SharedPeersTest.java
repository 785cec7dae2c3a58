package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The peers that share a key, by index, agree with the view's replica sets, with the shortcut for a full replication factor or without. */
class SharedPeersTest {
    private static final List<String> NODES = List.of("http://a", "http://b", "http://c", "http://d");

    private static void assertAgreesWithTheView(ExchangePeers view) {
        SharedPeers shared = new SharedPeers(view);
        for (int k = 0; k < 2_000; k++) {
            byte[] key = ("key" + k).getBytes(StandardCharsets.UTF_8);
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < view.peers().size(); i++) {
                if (view.shares(key, view.peers().get(i))) expected.add(i);
            }
            List<Integer> got = new ArrayList<>();
            for (int i : shared.of(key)) got.add(i);
            assertThat(got).as("key%d, replication factor %d", k, view.replicas()).containsExactlyInAnyOrderElementsOf(expected);
        }
        for (int i = 0; i < view.peers().size(); i++) assertThat(shared.indexOf(view.peers().get(i))).isEqualTo(i);
        assertThat(shared.indexOf("http://elsewhere")).isEqualTo(-1);
    }

    @Test
    void everyReplicationFactorAgreesWithTheView() {
        List<String> peers = List.of("http://d", "http://b", "http://c"); // not in placement's order
        for (int rf = 1; rf <= NODES.size() + 1; rf++) {
            assertAgreesWithTheView(new ExchangePeers(1, "http://a", peers, new Placement(NODES), rf));
        }
    }

    @Test
    void aNodeOutsideTheClusterSharesNothing() {
        ExchangePeers view = new ExchangePeers(1, "http://e", List.of(), new Placement(NODES), NODES.size());
        assertThat(new SharedPeers(view).of("k".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertAgreesWithTheView(view);
    }
}
