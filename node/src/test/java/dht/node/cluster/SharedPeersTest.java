package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The peers that share a version of a key, by index, agree with the view's replica sets, with the
 * shortcut for a version on every node or without: for each replication factor, and for versions
 * that asked for fewer copies, more, or did not record them.
 */
class SharedPeersTest {
    private static final List<String> NODES = List.of("http://a", "http://b", "http://c", "http://d");

    private static void assertAgreesWithTheView(ExchangePeers view) {
        SharedPeers shared = new SharedPeers(view);
        for (int k = 0; k < 2_000; k++) {
            byte[] key = ("key" + k).getBytes(StandardCharsets.UTF_8);
            int copies = k % (NODES.size() + 2); // 0: not recorded
            Entry e = Entry.value(key, new byte[0], 1).withCopies(copies);
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < view.peers().size(); i++) {
                if (view.shares(e, view.peers().get(i))) expected.add(i);
            }
            List<Integer> got = new ArrayList<>();
            for (int i : shared.of(key, copies)) got.add(i);
            assertThat(got).as("key%d, %d copies, replication factor %d", k, copies, view.replicas())
                    .containsExactlyInAnyOrderElementsOf(expected);
            int holders = Math.min(copies > 0 ? copies : view.replicas(), NODES.size());
            boolean held = view.placement().replicas(key, holders).contains(view.self());
            assertThat(got).as("key%d, %d copies: one index for each other holder", k, copies)
                    .hasSize(held && !view.peers().isEmpty() ? holders - 1 : 0);
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
        assertThat(new SharedPeers(view).of("k".getBytes(StandardCharsets.UTF_8), 0)).isEmpty();
        assertAgreesWithTheView(view);
    }
}
