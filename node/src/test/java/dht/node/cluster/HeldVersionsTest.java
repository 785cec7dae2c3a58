package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import dht.storage.Stamp;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class HeldVersionsTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aWordHashesAsTheTreesHashTheVersionItStandsFor() {
        byte[] key = b("k");
        long now = System.currentTimeMillis();
        Entry[] versions = {
            Entry.value(key, b("v"), 42), Entry.tombstone(key, 42), Entry.value(key, b("v"), 42, now + 60_000),
            Entry.value(key, b("v"), 0), Entry.tombstone(key, (1L << 54) - 2),
            Entry.value(key, b("v"), 42).withCopies(1), Entry.value(key, b("v"), (1L << 54) - 2).withCopies(Entry.MAX_COPIES),
            Entry.value(key, b("v"), 42, now + 60_000).withCopies(2),
        };
        for (Entry e : versions) {
            long w = HeldVersions.word(Stamp.of(e));
            assertThat(HeldVersions.hash(MerkleTree.keyHash(key), w)).as("%s", e).isEqualTo(MerkleTree.hashOf(e));
            assertThat(HeldVersions.timestamp(w)).isEqualTo(e.timestamp());
            assertThat(HeldVersions.copies(w)).as("%s: its tree copies", e).isEqualTo(HeldVersions.treeCopies(e));
            assertThat(HeldVersions.wordOf(e)).as("%s: by entry and by stamp", e).isEqualTo(w);
        }
        assertThat(HeldVersions.treeCopies(Entry.value(key, b("v"), 42).withCopies(3))).isEqualTo(3);
        assertThat(HeldVersions.treeCopies(Entry.value(key, b("v"), 42, now + 60_000).withCopies(1)))
                .as("a value that expires sits on the copies its write asked for").isEqualTo(1);
        assertThat(HeldVersions.treeCopies(Entry.value(key, b("v"), 42, now - 60_000).withCopies(1)))
                .as("also once it has expired, as stored").isEqualTo(1);
        assertThat(HeldVersions.word((1L << 54) - 1, false)).as("past what a word holds").isEqualTo(HeldVersions.UNKNOWN);
        assertThat(HeldVersions.word(null)).isEqualTo(HeldVersions.NONE);
        assertThat(HeldVersions.hash(MerkleTree.keyHash(key), HeldVersions.NONE)).isZero();
        assertThat(HeldVersions.word(Long.MAX_VALUE, false)).isEqualTo(HeldVersions.UNKNOWN);
        assertThat(HeldVersions.word(-1, true)).isEqualTo(HeldVersions.UNKNOWN);
    }

    @Test
    void keysKeepTheirWordsAcrossGrowth() {
        HeldVersions v = new HeldVersions(HeldVersions.DEFAULT_BYTES);
        for (long k = 0; k < 100_000; k++) {
            assertThat(v.put(k * 0x9E3779B97F4A7C15L, k + 1)).isTrue();
            if (v.wantsToGrow()) v.grow();
        }
        assertThat(v.size()).isEqualTo(100_000);
        for (long k = 0; k < 100_000; k++) assertThat(v.get(k * 0x9E3779B97F4A7C15L)).isEqualTo(k + 1);
        assertThat(v.get(12345)).isEqualTo(HeldVersions.ABSENT);
        v.put(0, 7); // a key hash of zero is a key like any other
        assertThat(v.get(0)).isEqualTo(7);
    }

    @Test
    void aKeyPastTheBudgetIsLostAndCompletenessWithIt() {
        HeldVersions v = new HeldVersions(64 << 10); // 4,096 slots, 3,584 keys
        long start = v.losses();
        int added = 0;
        for (long k = 1; k <= 5_000; k++) {
            if (v.put(k * 0x9E3779B97F4A7C15L, 1)) added++;
            if (v.wantsToGrow()) v.grow();
        }
        assertThat(added).isEqualTo(3_584);
        v.markComplete(start);
        assertThat(v.complete()).as("a key was lost during the build").isFalse();
        long again = v.losses();
        v.markComplete(again);
        assertThat(v.complete()).isTrue();
        assertThat(v.get(1 * 0x9E3779B97F4A7C15L)).as("keys kept are still there").isEqualTo(1);
        v.clear();
        assertThat(v.complete()).isFalse();
        assertThat(v.get(1 * 0x9E3779B97F4A7C15L)).isEqualTo(HeldVersions.ABSENT);
    }

    @Test
    void noBudgetHoldsNothing() {
        HeldVersions v = new HeldVersions(0);
        assertThat(v.put(5, 1)).isFalse();
        assertThat(v.get(5)).isEqualTo(HeldVersions.ABSENT);
        v.markComplete(v.losses());
        assertThat(v.complete()).as("with nothing held, a miss says nothing").isFalse();
    }
}
