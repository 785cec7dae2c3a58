package dht.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dht.testkit.Operation.Outcome;
import dht.testkit.Operation.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Histories generated from a simulated atomic register: each operation takes effect at one
 * instant between its invoke and its completion, so every such history must pass.
 */
class HistoryCheckerScaleTest {

    private record Planned(int process, Type type, String key, String value, long invoke, long effect, long complete, Outcome outcome) {}

    /** {@code count} operations on {@code keys} keys, heavily overlapping, some refused or with unknown outcomes. */
    private static List<Operation> atomicHistory(long seed, int count, int keys) {
        var random = new Random(seed);
        List<Planned> planned = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long invoke = random.nextLong(count * 10L);
            long effect = invoke + random.nextLong(1, 200);
            long complete = effect + random.nextLong(1, 200);
            String key = "k" + random.nextInt(keys);
            int roll = random.nextInt(100);
            Type type = roll < 45 ? Type.PUT : roll < 55 ? Type.DELETE : Type.GET;
            int fate = random.nextInt(100);
            Outcome outcome = type == Type.GET || fate < 90 ? Outcome.OK : fate < 95 ? Outcome.UNKNOWN : Outcome.FAIL;
            planned.add(new Planned(random.nextInt(16), type, key, type == Type.PUT ? "v" + i : null, invoke, effect, complete, outcome));
        }
        planned.sort(Comparator.comparingLong(Planned::effect));
        Map<String, String> register = new HashMap<>();
        List<Operation> ops = new ArrayList<>();
        for (Planned p : planned) {
            String value = p.value;
            // An unknown write takes effect or not; a refused one never does.
            boolean applies = p.outcome == Outcome.OK || p.outcome == Outcome.UNKNOWN && random.nextBoolean();
            switch (p.type) {
                case PUT -> { if (applies) register.put(p.key, p.value); }
                case DELETE -> { if (applies) register.remove(p.key); }
                case GET -> value = register.get(p.key);
            }
            long complete = p.outcome == Outcome.UNKNOWN && random.nextBoolean() ? Operation.NEVER : p.complete;
            ops.add(new Operation(ops.size() + 1, p.process, p.type, p.key, value, p.invoke, complete, p.outcome));
        }
        return ops;
    }

    @Test
    void atomicHistoriesPass() {
        for (long seed = 1; seed <= 20; seed++) {
            var result = HistoryChecker.check(atomicHistory(seed, 2_000, 3));
            assertTrue(result.valid(), "seed " + seed + ": " + result);
        }
    }

    @Test
    void aHundredThousandOperationsAreCheckedInSeconds() {
        List<Operation> ops = atomicHistory(42, 100_000, 50);
        var result = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> HistoryChecker.check(ops));
        assertTrue(result.valid(), result::toString);
        assertEquals(100_000, result.operations());
    }

    @Test
    void aReadTurnedStaleIsFound() {
        List<Operation> ops = new ArrayList<>(atomicHistory(7, 2_000, 1));
        // Make the last read of a value return the first value written instead, long overwritten.
        Operation first = ops.stream().filter(o -> o.type() == Type.PUT && o.outcome() == Outcome.OK)
                .min(Comparator.comparingLong(Operation::completeNanos)).orElseThrow();
        Operation last = ops.stream().filter(o -> o.type() == Type.GET && o.value() != null && !o.value().equals(first.value()))
                .max(Comparator.comparingLong(Operation::invokeNanos)).orElseThrow();
        ops.set(ops.indexOf(last), new Operation(last.id(), last.process(), last.type(), last.key(), first.value(),
                last.invokeNanos(), last.completeNanos(), last.outcome()));
        var result = HistoryChecker.check(ops);
        assertFalse(result.valid());
    }
}
