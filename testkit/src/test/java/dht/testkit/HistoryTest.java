package dht.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dht.testkit.Operation.Outcome;
import dht.testkit.Operation.Type;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class HistoryTest {

    @Test
    void recordsEachOutcomeWithItsTimes() {
        var history = new History();
        long before = System.nanoTime();
        history.put(1, "k", "v1").ok();
        history.get(2, "k").read("v1");
        history.get(2, "k").read(null);
        history.delete(1, "k").unknown();
        history.put(1, "k", "v2").fail();
        history.get(3, "k").unknown();
        List<Operation> ops = history.operations();
        assertEquals(6, ops.size());
        assertEquals(List.of(Type.PUT, Type.GET, Type.GET, Type.DELETE, Type.PUT, Type.GET), ops.stream().map(Operation::type).toList());
        assertEquals(List.of(Outcome.OK, Outcome.OK, Outcome.OK, Outcome.UNKNOWN, Outcome.FAIL, Outcome.UNKNOWN),
                ops.stream().map(Operation::outcome).toList());
        assertEquals("v1", ops.get(1).value());
        assertNull(ops.get(2).value());
        assertEquals("v2", ops.get(4).value());
        for (Operation op : ops) {
            assertTrue(op.invokeNanos() >= before && op.completeNanos() >= op.invokeNanos(), op::toString);
        }
        assertEquals(Operation.NEVER, ops.get(3).effectiveCompleteNanos(), "an unknown write counts as never completed");
    }

    @Test
    void operationsInFlightCountAsUnknownAndNeverCompleted() {
        var history = new History();
        var inFlight = history.put(1, "k", "v1");
        Operation op = history.operations().getFirst();
        assertEquals(Outcome.UNKNOWN, op.outcome());
        assertEquals(Operation.NEVER, op.completeNanos());
        assertEquals("v1", op.value());
        inFlight.ok();
        assertEquals(Outcome.OK, history.operations().getFirst().outcome());
    }

    @Test
    void anOperationCompletesOnceAndAsItsType() {
        var history = new History();
        var put = history.put(1, "k", "v1");
        put.ok();
        assertThrows(IllegalStateException.class, put::unknown);
        assertThrows(IllegalStateException.class, () -> history.get(1, "k").ok());
        assertThrows(IllegalStateException.class, () -> history.delete(1, "k").read("x"));
        assertThrows(IllegalArgumentException.class, () -> history.put(1, "k", null));
    }

    @Test
    void threadsRecordConcurrentlyWithoutLosingOperations() throws InterruptedException {
        var history = new History();
        int threads = 8;
        int each = 2_000;
        var start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int process = t;
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    String value = process + "-" + i;
                    history.put(process, "k" + (i % 7), value).ok();
                    history.get(process, "k" + (i % 7)).read(value);
                }
            }));
        }
        start.countDown();
        for (Thread w : workers) w.join();
        List<Operation> ops = history.operations();
        assertEquals(threads * each * 2, ops.size());
        assertEquals(ops.size(), new HashSet<>(ops.stream().map(Operation::id).toList()).size());
        for (int i = 1; i < ops.size(); i++) assertTrue(ops.get(i - 1).invokeNanos() <= ops.get(i).invokeNanos());
        // Each thread read its own write at once: linearizable only if nothing overwrote it between,
        // so the checker may find violations; it must not throw and must see every operation.
        assertEquals(ops.size(), HistoryChecker.check(history).operations());
    }
}
