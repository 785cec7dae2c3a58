package dht.storage;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Chooses what a size-tiered compaction merges next (docs/storage-format.md, "Compaction").
 *
 * <p>Tables are sorted by size and grouped into buckets of similar size: a table joins the
 * current bucket when it is at most 1.5 times the bucket's average, or when it and the average
 * are both under {@link #SMALL_TABLE_BYTES} (fresh flushes vary in size, and merging small tables
 * early is cheap). The pick is the smallest bucket holding at least {@code minTables} tables, at
 * most {@link #MAX_TABLES} of it: merging the small ones first keeps the number of tables a read
 * consults low for the least work, and each byte is rewritten about {@code log_minTables(N)}
 * times. Generic over the table type so the rule can be checked without files.
 */
final class SizeTieredPicker {
    static final long SMALL_TABLE_BYTES = 4L << 20;
    static final int MAX_TABLES = 32;

    private SizeTieredPicker() {}

    /** The tables to merge next among {@code candidates}, smallest first; empty when none is due. */
    static <T> List<T> pick(List<T> candidates, ToLongFunction<T> size, int minTables) {
        for (List<T> bucket : buckets(candidates, size)) {
            if (bucket.size() >= minTables) return bucket.size() > MAX_TABLES ? bucket.subList(0, MAX_TABLES) : bucket;
        }
        return List.of();
    }

    /** How many merges are due: the buckets holding at least {@code minTables} tables. */
    static <T> int due(List<T> candidates, ToLongFunction<T> size, int minTables) {
        int n = 0;
        for (List<T> bucket : buckets(candidates, size)) if (bucket.size() >= minTables) n++;
        return n;
    }

    /** Buckets of tables of similar size, smallest first, each sorted by size. */
    static <T> List<List<T>> buckets(List<T> candidates, ToLongFunction<T> size) {
        List<T> sorted = new ArrayList<>(candidates);
        sorted.sort(Comparator.comparingLong(size));
        List<List<T>> buckets = new ArrayList<>();
        List<T> b = new ArrayList<>();
        long sum = 0;
        for (T t : sorted) {
            long s = size.applyAsLong(t);
            double avg = b.isEmpty() ? 0 : (double) sum / b.size();
            boolean fits = b.isEmpty() || s <= avg * 1.5 || (s <= SMALL_TABLE_BYTES && avg <= SMALL_TABLE_BYTES);
            if (!fits) {
                buckets.add(b);
                b = new ArrayList<>();
                sum = 0;
            }
            b.add(t);
            sum += s;
        }
        if (!b.isEmpty()) buckets.add(b);
        return buckets;
    }
}
