package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MerkleTreeTest {
    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<Entry> entries(int n) {
        List<Entry> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(i % 7 == 0 ? Entry.tombstone(key("k" + i), 1000 + i) : Entry.value(key("k" + i), key("v" + i), 1000 + i));
        }
        return out;
    }

    private static MerkleTree treeOf(List<Entry> entries) {
        MerkleTree t = new MerkleTree();
        for (Entry e : entries) t.add(e);
        return t;
    }

    /** Nodes compare leaves, so an entry's hash must not change between builds: pinned values. */
    @Test
    void anEntrysHashIsTheSameInEveryBuild() {
        byte[] k = key("key000000042");
        assertThat(MerkleTree.entryHash(k, 1_764_393_600_000_000L, false)).isEqualTo(-2272848358184633619L);
        assertThat(MerkleTree.entryHash(k, 1_764_393_600_000_000L, true)).isEqualTo(-3060488811879465061L);
        assertThat(MerkleTree.entryHash(new byte[300], -1L, true)).isEqualTo(-8193829594750866599L);
        assertThat(MerkleTree.hashOf(MerkleTree.keyHash(k), new dht.storage.Stamp(1_764_393_600_000_000L, false, 5)))
                .as("a value with an expiry hashes as the tombstone it becomes").isEqualTo(-3060488811879465061L)
                .isEqualTo(MerkleTree.hashOf(Entry.value(k, key("v"), 1_764_393_600_000_000L, 5)));
        assertThat(MerkleTree.hashOf(MerkleTree.keyHash(k), (dht.storage.Stamp) null)).isZero();
    }

    /** Two versions of one key never hash alike, or a leaf could miss that a replica holds another. */
    @Test
    void versionsOfOneKeyHashApart() {
        byte[] k = key("key000000042");
        java.util.Set<Long> seen = new java.util.HashSet<>();
        long t0 = 1_764_393_600_000_000L;
        for (long t = t0; t < t0 + 50_000; t++) {
            assertThat(seen.add(MerkleTree.entryHash(k, t, false))).isTrue();
            assertThat(seen.add(MerkleTree.entryHash(k, t, true))).isTrue();
        }
        assertThat(MerkleTree.entryHash(MerkleTree.keyHash(k), t0, false)).isEqualTo(MerkleTree.entryHash(k, t0, false));
    }

    @Test
    void equalContentsInAnyOrderGiveEqualTrees() {
        List<Entry> es = entries(5_000);
        MerkleTree a = treeOf(es);
        List<Entry> shuffled = new ArrayList<>(es);
        Collections.shuffle(shuffled, new Random(7));
        MerkleTree b = treeOf(shuffled);
        assertThat(a.diff(b).isEmpty()).isTrue();
        assertThat(a.root()).isEqualTo(b.root());
        assertThat(MerkleTree.decode(a.encode()).diff(a).isEmpty()).isTrue();
    }

    @Test
    void oneChangedEntryChangesExactlyItsLeaf() {
        List<Entry> es = entries(5_000);
        MerkleTree a = treeOf(es);
        byte[] k = key("k42");
        for (Entry changed : List.of(Entry.tombstone(k, 9999), Entry.value(k, key("v42"), 1042))) {
            List<Entry> other = new ArrayList<>(es);
            other.set(42, changed);
            BitSet diff = a.diff(treeOf(other));
            assertThat(diff.cardinality()).isEqualTo(1);
            assertThat(diff.nextSetBit(0)).isEqualTo(MerkleTree.leafOf(k));
            assertThat(a.root()).isNotEqualTo(treeOf(other).root());
        }
        // a missing entry too
        List<Entry> fewer = new ArrayList<>(es);
        fewer.remove(42);
        assertThat(a.diff(treeOf(fewer)).stream().boxed().toList()).containsExactly(MerkleTree.leafOf(k));
    }

    @Test
    void addingTwiceTakesAnEntryOut() {
        MerkleTree t = treeOf(entries(100));
        Entry extra = Entry.value(key("x"), key("y"), 5);
        t.add(extra);
        t.add(extra);
        assertThat(t.diff(treeOf(entries(100))).isEmpty()).isTrue();
    }

    @Test
    void leavesCoverTheRangeAndSpreadKeys() {
        assertThat(MerkleTree.LEAVES).isEqualTo(4096);
        int[] counts = new int[MerkleTree.LEAVES];
        for (int i = 0; i < 409_600; i++) {
            int leaf = MerkleTree.leafOf(key("key-" + i));
            assertThat(leaf).isBetween(0, MerkleTree.LEAVES - 1);
            counts[leaf]++;
        }
        for (int c : counts) assertThat(c).isBetween(50, 150); // about 100 each
        assertThat(MerkleTree.leafOf(key("same"))).isEqualTo(MerkleTree.leafOf(key("same")));
    }

    @Test
    void decodeRefusesABodyOfTheWrongSize() {
        assertThatThrownBy(() -> MerkleTree.decode(new byte[10])).isInstanceOf(IllegalArgumentException.class);
    }
}
