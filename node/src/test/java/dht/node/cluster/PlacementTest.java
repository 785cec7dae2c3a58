package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PlacementTest {
    private static final List<String> NODES = List.of("http://localhost:8080", "http://localhost:8081",
            "http://localhost:8082", "http://localhost:8083", "http://localhost:8084");

    @Test
    void orderIsAPermutationAndSmallerFromIsAPrefix() {
        Placement p = new Placement(NODES);
        Random r = new Random(1);
        for (int i = 0; i < 2000; i++) {
            byte[] key = new byte[1 + r.nextInt(20)];
            r.nextBytes(key);
            List<String> order = p.order(key);
            assertThat(order).containsExactlyInAnyOrderElementsOf(NODES);
            for (int from = 1; from <= NODES.size(); from++) {
                assertThat(p.replicas(key, from)).isEqualTo(order.subList(0, from));
            }
        }
    }

    @Test
    void orderDependsOnlyOnTheSetOfUrlsNotTheirListing() {
        List<String> shuffled = new ArrayList<>(NODES);
        Collections.shuffle(shuffled, new Random(7));
        Placement a = new Placement(NODES);
        Placement b = new Placement(shuffled);
        for (int i = 0; i < 1000; i++) {
            byte[] key = ("key" + i).getBytes(StandardCharsets.UTF_8);
            assertThat(b.order(key)).isEqualTo(a.order(key));
        }
    }

    @Test
    void knownOrderIsStableAcrossReleases() {
        // Placement decides where data lives on disk: changing it silently would lose data on upgrade.
        Placement p = new Placement(List.of("http://localhost:8080", "http://localhost:8081", "http://localhost:8082"));
        StringBuilder orders = new StringBuilder();
        for (String key : List.of("hello", "world", "a", "key42", "user:1", "", "z", "0")) {
            for (String node : p.order(key.getBytes(StandardCharsets.UTF_8))) orders.append(node.charAt(node.length() - 1));
            orders.append(' ');
        }
        assertThat(orders.toString()).isEqualTo("210 201 201 021 102 102 021 120 ");
    }

    @Test
    void removingANodeMovesOnlyItsKeys() {
        Placement five = new Placement(NODES);
        Placement four = new Placement(NODES.subList(0, 4));
        Random r = new Random(3);
        for (int i = 0; i < 5000; i++) {
            byte[] key = new byte[8];
            r.nextBytes(key);
            List<String> without = new ArrayList<>(five.order(key));
            without.remove(NODES.get(4));
            assertThat(four.order(key)).isEqualTo(without);
        }
    }

    @Test
    void spreadIsEvenForRandomKeys() {
        Placement p = new Placement(NODES);
        Random r = new Random(11);
        int[] primaries = new int[NODES.size()];
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            byte[] key = new byte[16];
            r.nextBytes(key);
            primaries[NODES.indexOf(p.replicas(key, 1).get(0))]++;
        }
        for (int c : primaries) {
            // expected 20000 each; 5 sigma is about 630
            assertThat(c).isBetween(n / NODES.size() - 1000, n / NODES.size() + 1000);
        }
    }
}
