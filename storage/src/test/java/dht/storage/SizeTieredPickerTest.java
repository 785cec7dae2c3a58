package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SizeTieredPickerTest {
    private static final long MB = 1L << 20;

    private static List<Long> pick(int minTables, Long... sizes) {
        return SizeTieredPicker.pick(List.of(sizes), Long::longValue, minTables);
    }

    @Test
    void nothingIsDueUntilABucketHoldsEnoughTables() {
        assertThat(pick(4, 10 * MB, 11 * MB, 12 * MB)).isEmpty();
        assertThat(pick(4, 10 * MB, 11 * MB, 12 * MB, 13 * MB)).containsExactly(10 * MB, 11 * MB, 12 * MB, 13 * MB);
    }

    @Test
    void aMuchLargerTableWaitsForPeersOfItsOwnSize() {
        // 100 MB is far over 1.5x the small ones' average: it is not rewritten to absorb them
        assertThat(pick(4, 100 * MB, 10 * MB, 11 * MB, 12 * MB, 13 * MB)).containsExactly(10 * MB, 11 * MB, 12 * MB, 13 * MB);
        assertThat(pick(4, 100 * MB, 10 * MB, 11 * MB, 12 * MB)).isEmpty();
    }

    @Test
    void tablesUnderFourMegabytesShareOneBucketWhateverTheirRatio() {
        assertThat(pick(4, 100_000L, 3 * MB, 1_000L, MB)).containsExactly(1_000L, 100_000L, MB, 3 * MB);
    }

    @Test
    void theSmallestDueBucketGoesFirst() {
        List<Long> big = List.of(200 * MB, 210 * MB, 220 * MB, 230 * MB);
        List<Long> small = List.of(20 * MB, 21 * MB, 22 * MB, 23 * MB);
        List<Long> all = new ArrayList<>(big);
        all.addAll(small);
        assertThat(SizeTieredPicker.pick(all, Long::longValue, 4)).containsExactlyElementsOf(small);
        assertThat(SizeTieredPicker.due(all, Long::longValue, 4)).isEqualTo(2);
    }

    @Test
    void aMergeTakesAtMostThirtyTwoTablesTheSmallestOfTheBucket() {
        List<Long> sizes = new ArrayList<>();
        for (int i = 40; i > 0; i--) sizes.add((long) i);
        List<Long> picked = SizeTieredPicker.pick(sizes, Long::longValue, 4);
        assertThat(picked).hasSize(SizeTieredPicker.MAX_TABLES).first().isEqualTo(1L);
        assertThat(picked).last().isEqualTo(32L);
    }

    @Test
    void aBucketGrowsWhileEachTableStaysWithinOneAndAHalfTimesItsAverage() {
        // averages 10, 11.5, 12.7: 16 fits (<= 19.05), 30 does not (> 1.5 x 13.5)
        assertThat(SizeTieredPicker.buckets(List.of(10 * MB, 13 * MB, 15 * MB, 16 * MB, 30 * MB), Long::longValue))
                .containsExactly(List.of(10 * MB, 13 * MB, 15 * MB, 16 * MB), List.of(30 * MB));
    }
}
