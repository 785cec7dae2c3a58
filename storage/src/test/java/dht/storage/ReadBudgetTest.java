package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A point read reserves its value in the caller's {@link ReadBudget} before copying it: after
 * {@code get} returns, exactly the returned value is reserved; after it throws, nothing is.
 */
class ReadBudgetTest {
    @TempDir
    Path dir;

    /** A budget of {@code limit} bytes that remembers every reservation asked for. */
    static final class CountingBudget implements ReadBudget {
        final long limit;
        long held;
        final List<Integer> asked = new ArrayList<>();

        CountingBudget(long limit) {
            this.limit = limit;
        }

        @Override
        public synchronized boolean tryReserve(int bytes) {
            asked.add(bytes);
            if (held + bytes > limit) return false;
            held += bytes;
            return true;
        }

        @Override
        public synchronized void release(int bytes) {
            held -= bytes;
            assertThat(held).as("released more than reserved").isNotNegative();
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aValueFromTheMemtableOrATableIsReservedAtItsLength() throws Exception {
        try (LsmStore s = LsmStore.open(dir, LsmStoreTest.small())) {
            s.put(b("in-table"), new byte[3000], 1);
            s.flush();
            s.put(b("in-memtable"), new byte[2000], 2);

            CountingBudget budget = new CountingBudget(10_000);
            assertThat(s.get(b("in-table"), budget).value()).hasSize(3000);
            assertThat(budget.held).isEqualTo(3000);
            assertThat(s.get(b("in-memtable"), budget).value()).hasSize(2000);
            assertThat(budget.held).isEqualTo(5000);
        }
    }

    @Test
    void missesAndTombstonesReserveNothing() throws Exception {
        try (LsmStore s = LsmStore.open(dir, LsmStoreTest.small())) {
            s.put(b("gone"), new byte[500], 1);
            s.delete(b("gone"), 2);
            CountingBudget budget = new CountingBudget(0);
            assertThat(s.get(b("gone"), budget).isTombstone()).isTrue();
            assertThat(s.get(b("never"), budget)).isNull();
            assertThat(budget.held).isZero();
        }
    }

    @Test
    void aValueTheBudgetCannotTakeIsRefusedBeforeItIsCopied() throws Exception {
        try (LsmStore s = LsmStore.open(dir, LsmStoreTest.small())) {
            s.put(b("k"), new byte[4000], 1);
            CountingBudget budget = new CountingBudget(3999);
            assertThatThrownBy(() -> s.get(b("k"), budget))
                    .isInstanceOfSatisfying(ReadBudgetExceededException.class, e -> assertThat(e.bytes()).isEqualTo(4000));
            assertThat(budget.held).isZero();
            s.flush();
            assertThatThrownBy(() -> s.get(b("k"), budget)).isInstanceOf(ReadBudgetExceededException.class);
            assertThat(budget.held).isZero();
            assertThat(s.get(b("k")).value()).hasSize(4000); // the plain read is not limited
        }
    }

    /** 3000 bytes at timestamp 10 in a table, then 1000 at timestamp 5 in the memtable: later, but the older write. */
    private static void newerInATableOlderInTheMemtable(LsmStore s) throws Exception {
        s.put(b("k"), new byte[3000], 10);
        s.flush();
        s.put(b("k"), new byte[1000], 5);
    }

    @Test
    void anOlderVersionReadOnTheWayGivesItsReservationBack() throws Exception {
        try (LsmStore s = LsmStore.open(dir, LsmStoreTest.small())) {
            newerInATableOlderInTheMemtable(s); // the table's wins
            CountingBudget budget = new CountingBudget(10_000);
            assertThat(s.get(b("k"), budget).value()).hasSize(3000);
            assertThat(budget.asked).containsExactly(1000, 3000);
            assertThat(budget.held).isEqualTo(3000);
        }
    }

    @Test
    void aRefusalPartWayThroughGivesBackWhatWasReservedBefore() throws Exception {
        try (LsmStore s = LsmStore.open(dir, LsmStoreTest.small())) {
            newerInATableOlderInTheMemtable(s);
            CountingBudget budget = new CountingBudget(3500); // takes the memtable's 1000, not then the table's 3000
            assertThatThrownBy(() -> s.get(b("k"), budget)).isInstanceOf(ReadBudgetExceededException.class);
            assertThat(budget.asked).containsExactly(1000, 3000);
            assertThat(budget.held).isZero();
        }
    }

    @Test
    void aVersionOlderThanOneAlreadyFoundIsNeitherCopiedNorReserved() throws Exception {
        try (LsmStore s = LsmStore.open(dir, LsmStoreTest.small())) {
            s.put(b("k"), new byte[5000], 5);
            s.put(b("j"), new byte[10], 20); // so the table's newest timestamp does not rule it out
            s.flush(); // the older version of k in a table
            s.put(b("k"), new byte[2000], 10);
            CountingBudget budget = new CountingBudget(4000); // the newest fits, the older one would not
            assertThat(s.get(b("k"), budget).value()).hasSize(2000);
            assertThat(budget.asked).containsExactly(2000);
            assertThat(budget.held).isEqualTo(2000);
        }
    }
}
