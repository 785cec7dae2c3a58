package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EntryTest {
    private static final byte[] K = {1};

    @Test
    void newerTimestampWins() {
        assertThat(Entry.value(K, new byte[] {1}, 2).supersedes(Entry.value(K, new byte[] {9}, 1))).isTrue();
        assertThat(Entry.value(K, new byte[] {9}, 1).supersedes(Entry.value(K, new byte[] {1}, 2))).isFalse();
    }

    @Test
    void tiesAreBrokenTheSameWayEverywhere() {
        Entry tomb = Entry.tombstone(K, 5);
        Entry small = Entry.value(K, new byte[] {1}, 5);
        Entry big = Entry.value(K, new byte[] {(byte) 0xff}, 5);
        assertThat(tomb.supersedes(big)).isTrue();
        assertThat(big.supersedes(tomb)).isFalse();
        assertThat(big.supersedes(small)).isTrue();
        assertThat(small.supersedes(big)).isFalse();
        assertThat(small.supersedes(small)).isFalse();
    }
}
