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

    @Test
    void aBorrowedValueComparesAndEqualsLikeTheSameArray() {
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment off = a.allocate(2);
            off.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 0xff);
            off.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 1, (byte) 1);
            Entry borrowed = Entry.value(K, off, 5);
            Entry same = Entry.value(K, new byte[] {(byte) 0xff, 1}, 5);
            Entry smaller = Entry.value(K, new byte[] {(byte) 0xff}, 5);
            assertThat(borrowed).isEqualTo(same);
            assertThat(same).isEqualTo(borrowed);
            assertThat(borrowed.supersedes(smaller)).isTrue();
            assertThat(smaller.supersedes(borrowed)).isFalse();
            assertThat(borrowed.supersedes(same)).isFalse();
            assertThat(Entry.tombstone(K, 5).supersedes(borrowed)).isTrue();
            assertThat(borrowed.valueLength()).isEqualTo(2);
            assertThat(borrowed.isBorrowed()).isTrue();
            assertThat(borrowed.isTombstone()).isFalse();

            Entry owned = borrowed.owned();
            off.fill((byte) 0);
            assertThat(owned.isBorrowed()).isFalse();
            assertThat(owned.value()).containsExactly((byte) 0xff, (byte) 1);
            assertThat(borrowed.value()).as("a borrowed value reads what its memory holds now").containsExactly(0, 0);
            assertThat(same.owned()).isSameAs(same);
        }
    }
}
