package dht.testkit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * Decides whether a {@link History} of a last-write-wins register per key, every written value
 * unique, keeps three promises:
 *
 * <ol>
 *   <li><b>No value never written</b>: a read returns the value of a write (not refused) invoked
 *       before the read completed, or absent.
 *   <li><b>No acknowledged write lost</b>: a read that begins after a write W was acknowledged
 *       returns W's value or that of a write that may be newer than W.
 *   <li><b>Monotonic reads</b>: a read that begins after a read R completed returns nothing older
 *       than what R returned.
 * </ol>
 *
 * <p>"Older" is the order the store must have given the writes. It is known where the history
 * shows it: a write that completed before another was invoked is older; and since a read that
 * began after W was acknowledged must see W or something newer, a read that began after W was
 * acknowledged and returned X (not W) shows W older than X, just as a read that returned X after
 * an earlier read returned W shows W older than X. Concurrent writes may be ordered either way,
 * but once reads have seen an order, later reads must keep it. For a register with unique values
 * this is the order of the write's "cluster" (the write and the reads that returned its value):
 * cluster A must come before B when an operation of A completed before one of B was invoked, and
 * the history is consistent exactly when no two clusters must each come before the other
 * (Gibbons and Korach's zones; Golab et al. use them for Dynamo-style stores). That pairwise test
 * runs in O(n log n) per key.
 *
 * <p>A write with an unknown outcome (504, timeout, lost connection) may take effect at any time
 * after its invoke, or never: it counts as never completed. A refused write (4xx) wrote nothing.
 * A delete writes "absent". Deletes share that value, so a read of absent that only one delete
 * can explain joins that delete's cluster; any other is checked against the delete most in its
 * favour (or the key's initial absence), and reported only when every one it could have seen
 * breaks a rule.
 *
 * <p>The rules hold for reads and writes with {@code ack} a quorum of {@code from}: a history
 * that is meant to pass should record only those (a read with ack=1 may be stale).
 */
public final class HistoryChecker {

    private HistoryChecker() {}

    /** The verdict on a history: what was checked and every violation found. */
    public record Result(int operations, int keys, List<Violation> violations) {
        public Result {
            violations = List.copyOf(violations);
        }

        public boolean valid() {
            return violations.isEmpty();
        }

        /** The verdict in words, with at most {@code max} violations spelled out. */
        public String report(int max) {
            var text = new StringBuilder();
            text.append(operations).append(" operations on ").append(keys).append(" keys: ");
            if (valid()) return text.append("no violation").toString();
            text.append(violations.size()).append(violations.size() == 1 ? " violation" : " violations");
            violations.stream().limit(max).forEach(v -> text.append("\n  ").append(v));
            if (violations.size() > max) text.append("\n  ... and ").append(violations.size() - max).append(" more");
            return text.toString();
        }

        @Override
        public String toString() {
            return report(20);
        }
    }

    /**
     * Checks a history.
     *
     * @throws IllegalArgumentException when a key has two puts of one value (retries must write a new value)
     */
    public static Result check(Collection<Operation> history) {
        long origin = history.stream().mapToLong(Operation::invokeNanos).min().orElse(0);
        var text = new OperationText(origin);
        Map<String, List<Operation>> byKey = new TreeMap<>();
        for (Operation op : history) byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
        List<Violation> found = new ArrayList<>();
        byKey.forEach((key, ops) -> new KeyCheck(key, ops, text, found).run());
        return new Result(history.size(), byKey.size(), found);
    }

    public static Result check(History history) {
        return check(history.operations());
    }

    /** A write and the reads that returned its value; it must occupy the span from low to high. */
    private static final class Cluster {
        final Operation write;
        /** The operation that completed first, and when: the cluster's value was in place by then. */
        Operation lowOp;
        long low = Operation.NEVER;
        /** The operation invoked last, and when: the value was still in place then. */
        Operation highOp;
        long high = Long.MIN_VALUE;

        /** The read that completed first, and the one invoked last. */
        Operation firstRead;
        Operation lastRead;

        Cluster(Operation write) {
            this.write = write;
            add(write);
        }

        void add(Operation op) {
            if (op != write) {
                if (firstRead == null || op.completeNanos() < firstRead.completeNanos()) firstRead = op;
                if (lastRead == null || op.invokeNanos() > lastRead.invokeNanos()) lastRead = op;
            }
            if (op.effectiveCompleteNanos() < low || lowOp == null) {
                low = op.effectiveCompleteNanos();
                lowOp = op;
            }
            if (op.invokeNanos() > high) {
                high = op.invokeNanos();
                highOp = op;
            }
        }
    }

    /** "{@code before}, an operation of one cluster, completed before {@code after}, of another, began." */
    private record Fact(Operation before, Operation after) {}

    private static final class KeyCheck {
        private final String key;
        private final List<Operation> ops;
        private final OperationText text;
        private final List<Violation> found;
        private final Map<String, Operation> writeOf = new HashMap<>();
        private final Map<String, Operation> refusedWriteOf = new HashMap<>();
        private final Map<Operation, Cluster> clusterOf = new IdentityHashMap<>();
        private final List<Operation> deletes = new ArrayList<>();
        private final List<Operation> acknowledged = new ArrayList<>();
        private final List<Operation> absentReads = new ArrayList<>();
        private final List<Operation> valueReads = new ArrayList<>();

        KeyCheck(String key, List<Operation> ops, OperationText text, List<Violation> found) {
            this.key = key;
            this.ops = ops;
            this.text = text;
            this.found = found;
        }

        void run() {
            sort();
            checkReadsFromWrites();
            placeAbsentReads();
            checkClusterOrder();
            checkAbsentReads();
        }

        private void sort() {
            Map<String, Operation> anyPutOf = new HashMap<>();
            for (Operation op : ops) {
                if (op.type() == Operation.Type.PUT) {
                    Operation twin = anyPutOf.putIfAbsent(op.value(), op);
                    if (twin != null) throw new IllegalArgumentException("key \"" + key + "\": " + text.value(op.value())
                            + " is written twice (puts #" + twin.id() + " and #" + op.id() + "); every written value must be unique");
                }
                if (op.isWrite()) {
                    if (op.outcome() == Operation.Outcome.FAIL) {
                        if (op.type() == Operation.Type.PUT) refusedWriteOf.put(op.value(), op);
                        continue;
                    }
                    if (op.outcome() == Operation.Outcome.OK) acknowledged.add(op);
                    if (op.type() == Operation.Type.PUT) writeOf.put(op.value(), op);
                    else deletes.add(op);
                    clusterOf.put(op, new Cluster(op));
                } else if (op.outcome() == Operation.Outcome.OK) {
                    (op.value() == null ? absentReads : valueReads).add(op);
                }
            }
        }

        /** Rule 1, and each read of a value joins its write's cluster. */
        private void checkReadsFromWrites() {
            List<Operation> placed = new ArrayList<>();
            for (Operation read : valueReads) {
                Operation write = writeOf.get(read.value());
                if (write == null) {
                    Operation refused = refusedWriteOf.get(read.value());
                    if (refused == null) {
                        report(Violation.Rule.VALUE_NEVER_WRITTEN, text.op(read) + " returned a value no write of this key wrote", read);
                    } else {
                        report(Violation.Rule.VALUE_NEVER_WRITTEN, text.op(read) + " returned the value of " + text.op(refused)
                                + ", which was refused and so wrote nothing", read, refused);
                    }
                } else if (read.completeNanos() < write.invokeNanos()) {
                    report(Violation.Rule.VALUE_NEVER_WRITTEN, text.op(read) + " returned the value of " + text.op(write)
                            + ", which was invoked only after the read had completed", read, write);
                } else {
                    clusterOf.get(write).add(read);
                    placed.add(read);
                }
            }
            valueReads.clear();
            valueReads.addAll(placed);
        }

        /**
         * A read of absent that only one delete can explain joins that delete's cluster, checked
         * like a read of a value. The key's initial absence explains it only while no write was
         * acknowledged and no value read before the read began (the initial state precedes them).
         */
        private void placeAbsentReads() {
            long initialEnds = Operation.NEVER;
            for (Operation w : acknowledged) initialEnds = Math.min(initialEnds, w.effectiveCompleteNanos());
            for (Operation r : valueReads) initialEnds = Math.min(initialEnds, r.completeNanos());
            List<Operation> byInvoke = new ArrayList<>(deletes);
            byInvoke.sort(Comparator.comparingLong(Operation::invokeNanos));
            long[] invokes = byInvoke.stream().mapToLong(Operation::invokeNanos).toArray();
            List<Operation> ambiguous = new ArrayList<>();
            for (Operation read : absentReads) {
                if (countBelow(invokes, read.completeNanos()) == 1 && initialEnds < read.invokeNanos()) {
                    clusterOf.get(byInvoke.get(0)).add(read);
                } else {
                    ambiguous.add(read);
                }
            }
            absentReads.clear();
            absentReads.addAll(ambiguous);
        }

        /** Rules 2 and 3 among writes and reads of values: no two clusters may each have to precede the other. */
        private void checkClusterOrder() {
            List<Cluster> clusters = new ArrayList<>(clusterOf.values());
            clusters.sort(Comparator.comparingLong(c -> c.low));
            int n = clusters.size();
            long[] lows = new long[n];
            // best[i] / second[i]: among clusters 0..i, the one invoked latest (greatest high), and the next.
            int[] best = new int[n];
            int[] second = new int[n];
            for (int i = 0; i < n; i++) {
                lows[i] = clusters.get(i).low;
                int b = i == 0 ? -1 : best[i - 1];
                int s = i == 0 ? -1 : second[i - 1];
                if (b < 0 || clusters.get(i).high > clusters.get(b).high) {
                    s = b;
                    b = i;
                } else if (s < 0 || clusters.get(i).high > clusters.get(s).high) {
                    s = i;
                }
                best[i] = b;
                second[i] = s;
            }
            Set<Long> reported = new HashSet<>();
            for (int i = 0; i < n; i++) {
                Cluster later = clusters.get(i);
                int k = countBelow(lows, later.high);
                if (k == 0) continue;
                int j = best[k - 1] == i ? second[k - 1] : best[k - 1];
                if (j < 0 || clusters.get(j).high <= later.low) continue;
                if (reported.add((long) Math.min(i, j) * n + Math.max(i, j))) conflict(clusters.get(j), later);
            }
        }

        /**
         * Clusters a and b each have an operation that completed before an operation of the other
         * began. Told from the read that went back: of the two clusters' last reads, the later one.
         */
        private void conflict(Cluster a, Cluster b) {
            Fact ab = lateRead(a, b);
            Fact ba = lateRead(b, a);
            if (ab != null && (ba == null || ab.after.invokeNanos() >= ba.after.invokeNanos())) {
                explain(ab, b, a);
            } else if (ba != null) {
                explain(ba, a, b);
            } else {
                Fact one = order(a, b);
                Fact other = order(b, a);
                report(Violation.Rule.ACKNOWLEDGED_WRITE_LOST, "neither " + text.written(a.write) + " nor " + text.written(b.write)
                        + " can be the newer: " + text.op(one.before) + " completed before " + text.op(one.after) + " began, and "
                        + text.op(other.before) + " completed before " + text.op(other.after) + " began",
                        one.before, one.after, other.before, other.after);
            }
        }

        /** The late read saw {@code older}'s value although an operation of {@code newer} preceded it. */
        private void explain(Fact late, Cluster older, Cluster newer) {
            Fact order = order(older, newer);
            String why = text.written(older.write) + " is older than " + text.written(newer.write) + ": "
                    + text.op(order.before) + " completed before " + text.op(order.after) + " began";
            if (isLostWrite(late)) {
                report(Violation.Rule.ACKNOWLEDGED_WRITE_LOST, text.op(late.after) + " began after " + text.op(late.before)
                        + " was acknowledged, yet returned " + text.written(older.write) + ", and " + why,
                        late.after, late.before, order.before, order.after);
            } else {
                report(Violation.Rule.NON_MONOTONIC_READ, text.op(late.after) + " began after " + text.op(late.before)
                        + " had completed, yet returned " + text.written(older.write) + ", and " + why,
                        late.after, late.before, order.before, order.after);
            }
        }

        /** Why {@code older} precedes {@code newer}, in the plainest terms the history offers: writes first. */
        private static Fact order(Cluster older, Cluster newer) {
            Operation[][] choices = {{older.write, newer.write}, {older.write, newer.lastRead}, {older.firstRead, newer.write}, {older.firstRead, newer.lastRead}};
            for (Operation[] c : choices) {
                if (c[0] != null && c[1] != null && c[0].effectiveCompleteNanos() < c[1].invokeNanos()) return new Fact(c[0], c[1]);
            }
            return new Fact(older.lowOp, newer.highOp);
        }

        private static boolean isLostWrite(Fact f) {
            return f != null && f.before.isWrite();
        }

        /** An operation of x that completed before y's last read began: x's write if it can, else x's earliest read. */
        private static Fact lateRead(Cluster x, Cluster y) {
            Operation last = y.lastRead;
            if (last == null) return null;
            if (x.write.effectiveCompleteNanos() < last.invokeNanos()) return new Fact(x.write, last);
            Operation first = x.firstRead;
            return first != null && first.completeNanos() < last.invokeNanos() ? new Fact(first, last) : null;
        }

        /**
         * Rules 2 and 3 for the other reads of absent, each judged by the delete most in its favour
         * (the one that completed last among those invoked before the read completed), or by the
         * key's initial absence.
         */
        private void checkAbsentReads() {
            var lastDelete = new Latest(deletes, Operation::invokeNanos, Operation::effectiveCompleteNanos);
            var lastAcknowledged = new Latest(acknowledged, Operation::effectiveCompleteNanos, Operation::invokeNanos);
            // A read r of a value shows older than that value every delete that completed before r's
            // write was invoked or before r began: a later read of absent must find none of those.
            var lastSeen = new Latest(valueReads, Operation::completeNanos, r -> Math.max(r.invokeNanos(), writeOf.get(r.value()).invokeNanos()));
            Set<Operation> flagged = new LinkedHashSet<>();
            for (Operation read : absentReads) {
                Operation delete = lastDelete.before(read.completeNanos());
                long deleteDone = delete == null ? Long.MIN_VALUE : delete.effectiveCompleteNanos();
                String deletes = delete == null
                        ? "no delete of the key was invoked before the read completed"
                        : "the delete it could have seen that completed last, " + text.op(delete) + ", completed before ";
                Operation write = lastAcknowledged.before(read.invokeNanos());
                if (write != null && deleteDone < write.invokeNanos()) {
                    report(Violation.Rule.ACKNOWLEDGED_WRITE_LOST, text.op(read) + " began after " + text.op(write)
                            + " was acknowledged, yet found the key absent, and " + deletes + (delete == null ? "" : "that write was invoked"),
                            nonNull(read, write, delete));
                    flagged.add(read);
                    continue;
                }
                Operation seen = lastSeen.before(read.invokeNanos());
                if (seen == null || deleteDone >= lastSeen.valueOf(seen)) continue;
                Operation seenWrite = writeOf.get(seen.value());
                String newer = seenWrite.invokeNanos() >= seen.invokeNanos()
                        ? text.op(seenWrite) + " was invoked"
                        : text.op(seen) + " began, so " + text.value(seen.value()) + " is newer";
                report(Violation.Rule.NON_MONOTONIC_READ, text.op(read) + " began after " + text.op(seen)
                        + " had completed, yet found the key absent, and " + deletes + (delete == null ? "" : newer),
                        nonNull(read, seen, seenWrite, delete));
                flagged.add(read);
            }
            // A read of a value must not go back behind an earlier read of absent: a value acknowledged
            // before that read began was older than the delete it saw.
            List<Operation> sound = new ArrayList<>(absentReads);
            sound.removeAll(flagged);
            var lastAbsent = new Latest(sound, Operation::completeNanos, Operation::invokeNanos);
            for (Operation read : valueReads) {
                Operation absent = lastAbsent.before(read.invokeNanos());
                Operation write = writeOf.get(read.value());
                if (absent == null || write.effectiveCompleteNanos() >= absent.invokeNanos()) continue;
                report(Violation.Rule.NON_MONOTONIC_READ, text.op(read) + " began after " + text.op(absent)
                        + " had completed, yet returned " + text.value(read.value()) + ", which " + text.op(write)
                        + " had written before that earlier read began, so the delete it saw is newer",
                        read, absent, write);
            }
        }

        private void report(Violation.Rule rule, String explanation, Operation... involved) {
            found.add(new Violation(rule, key, List.copyOf(new LinkedHashSet<>(Arrays.asList(involved))), explanation));
        }

        private static Operation[] nonNull(Operation... ops) {
            return Arrays.stream(ops).filter(o -> o != null).toArray(Operation[]::new);
        }
    }

    /**
     * Among operations, those whose {@code by} time is below a bound, and of them the one with the
     * greatest {@code value}: a sort and a prefix maximum, answered by binary search.
     */
    private static final class Latest {
        private final long[] by;
        private final Operation[] best;
        private final ToLongFunction<Operation> value;

        Latest(List<Operation> ops, ToLongFunction<Operation> by, ToLongFunction<Operation> value) {
            this.value = value;
            List<Operation> sorted = new ArrayList<>(ops);
            sorted.sort(Comparator.comparingLong(by));
            this.by = new long[sorted.size()];
            this.best = new Operation[sorted.size()];
            for (int i = 0; i < sorted.size(); i++) {
                Operation op = sorted.get(i);
                this.by[i] = by.applyAsLong(op);
                best[i] = i > 0 && value.applyAsLong(best[i - 1]) >= value.applyAsLong(op) ? best[i - 1] : op;
            }
        }

        /** The operation with the greatest value among those with {@code by} below {@code bound}, or null. */
        Operation before(long bound) {
            int k = countBelow(by, bound);
            return k == 0 ? null : best[k - 1];
        }

        long valueOf(Operation op) {
            return value.applyAsLong(op);
        }
    }

    /** How many elements of the ascending array are strictly below {@code bound}. */
    private static int countBelow(long[] ascending, long bound) {
        int lo = 0;
        int hi = ascending.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ascending[mid] < bound) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
}
