package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A batch's keys: each entry's first entry of the same key, and the distinct stripes, sorted. */
class BatchKeysTest {

    @Test
    void eachEntryPointsAtTheFirstEntryOfItsKeyAndStripesAreSortedAndDistinct() {
        Random r = new Random(3);
        for (int round = 0; round < 200; round++) {
            List<Entry> batch = new ArrayList<>();
            int n = 1 + r.nextInt(60);
            for (int i = 0; i < n; i++) {
                batch.add(Entry.tombstone(("k" + r.nextInt(20)).getBytes(StandardCharsets.UTF_8), i));
            }
            int stripeCount = 1 << (1 + r.nextInt(4)); // few stripes: distinct keys share them
            BatchKeys keys = new BatchKeys(batch, stripeCount);
            List<Integer> expectedStripes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int expectedFirst = i;
                for (int j = 0; j < i; j++) {
                    if (java.util.Arrays.equals(batch.get(j).key(), batch.get(i).key())) {
                        expectedFirst = j;
                        break;
                    }
                }
                assertThat(keys.first[i]).as("round %d, entry %d", round, i).isEqualTo(expectedFirst);
                assertThat(keys.hashes[i]).isEqualTo(MerkleTree.keyHash(batch.get(i).key()));
                int stripe = (int) MerkleTree.keyHash(batch.get(i).key()) & (stripeCount - 1);
                if (!expectedStripes.contains(stripe)) expectedStripes.add(stripe);
            }
            expectedStripes.sort(null);
            assertThat(keys.stripes).containsExactly(expectedStripes.stream().mapToInt(Integer::intValue).toArray());
        }
    }
}
