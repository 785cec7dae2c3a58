package dht.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dht.testkit.Operation.Outcome;
import dht.testkit.Operation.Type;
import dht.testkit.Violation.Rule;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class HistoryCheckerTest {
    private static final long NEVER = Operation.NEVER;
    private final List<Operation> ops = new ArrayList<>();

    // Hand-made histories: times in milliseconds, one key unless said otherwise.

    private Operation add(int process, Type type, String key, String value, long invokeMs, long completeMs, Outcome outcome) {
        long complete = completeMs == NEVER ? NEVER : completeMs * 1_000_000;
        var op = new Operation(ops.size() + 1, process, type, key, value, invokeMs * 1_000_000, complete, outcome);
        ops.add(op);
        return op;
    }

    private Operation put(String value, long invoke, long complete) {
        return add(1, Type.PUT, "k", value, invoke, complete, Outcome.OK);
    }

    private Operation putUnknown(String value, long invoke) {
        return add(1, Type.PUT, "k", value, invoke, NEVER, Outcome.UNKNOWN);
    }

    private Operation putRefused(String value, long invoke, long complete) {
        return add(1, Type.PUT, "k", value, invoke, complete, Outcome.FAIL);
    }

    private Operation delete(long invoke, long complete) {
        return add(1, Type.DELETE, "k", null, invoke, complete, Outcome.OK);
    }

    private Operation deleteUnknown(long invoke) {
        return add(1, Type.DELETE, "k", null, invoke, NEVER, Outcome.UNKNOWN);
    }

    /** A GET answered 200 with value, or 404 when value is null. */
    private Operation get(String value, long invoke, long complete) {
        return add(2, Type.GET, "k", value, invoke, complete, Outcome.OK);
    }

    private HistoryChecker.Result check() {
        return HistoryChecker.check(ops);
    }

    private void assertValid() {
        var result = check();
        assertTrue(result.valid(), result::toString);
    }

    private Violation assertOnly(Rule rule) {
        var result = check();
        Set<Rule> rules = new TreeSet<>();
        result.violations().forEach(v -> rules.add(v.rule()));
        assertEquals(Set.of(rule), rules, result.toString());
        return result.violations().getFirst();
    }

    @Test
    void sequentialPutsReadsAndDeletesPass() {
        get(null, 0, 1);
        put("v1", 2, 3);
        get("v1", 4, 5);
        put("v2", 6, 7);
        get("v2", 8, 9);
        delete(10, 11);
        get(null, 12, 13);
        put("v3", 14, 15);
        get("v3", 16, 17);
        assertValid();
    }

    @Test
    void emptyHistoryPasses() {
        var result = check();
        assertTrue(result.valid());
        assertEquals("0 operations on 0 keys: no violation", result.report(5));
    }

    @Test
    void overlappingWritesMayBeOrderedEitherWay() {
        put("v1", 0, 10);
        put("v2", 5, 15);
        get("v2", 20, 21);
        get("v2", 22, 23);
        assertValid();
        ops.clear();
        put("v1", 0, 10);
        put("v2", 5, 15);
        get("v1", 20, 21);
        get("v1", 22, 23);
        assertValid();
    }

    @Test
    void readsDuringAWriteMaySeeEitherValueUntilOneSeesTheNew() {
        put("v1", 0, 1);
        put("v2", 10, 30);
        get("v1", 11, 12);
        get("v2", 13, 14);
        get("v1", 13, 16); // concurrent with the read of v2, so it may still see v1
        get("v2", 20, 21);
        get("v2", 31, 32);
        assertValid();
    }

    @Test
    void aReadMaySeeAConcurrentWriteBeforeItIsAcknowledged() {
        put("v1", 0, 1);
        get("v1", 2, 10);
        put("v2", 3, 20);
        get("v2", 4, 5);
        get("v2", 6, 7);
        assertValid();
    }

    @Test
    void anUnknownWriteMayTakeEffectLongAfterward() {
        put("v1", 0, 1);
        putUnknown("v2", 5);
        get("v1", 50, 51);
        get("v2", 100, 101);
        get("v2", 102, 103);
        assertValid();
    }

    @Test
    void anUnknownWriteMayNeverTakeEffect() {
        put("v1", 0, 1);
        putUnknown("v2", 5);
        get("v1", 50, 51);
        get("v1", 100, 101);
        assertValid();
    }

    @Test
    void aRefusedWriteLeavesTheKeyAsItWas() {
        put("v1", 0, 1);
        putRefused("v2", 2, 3);
        get("v1", 4, 5);
        assertValid();
    }

    @Test
    void readsOfAnAbsentKeyPass() {
        get(null, 0, 1);
        put("v1", 2, 10);
        get(null, 3, 4); // concurrent with the first write
        get("v1", 5, 6);
        get("v1", 11, 12);
        add(2, Type.GET, "other", null, 0, 20, Outcome.OK);
        assertValid();
    }

    @Test
    void aDeleteConcurrentWithAPutMayWinOrLose() {
        put("v1", 0, 1);
        delete(10, 20);
        put("v2", 12, 18);
        get(null, 21, 22);
        get(null, 23, 24);
        assertValid();
        ops.clear();
        put("v1", 0, 1);
        delete(10, 20);
        put("v2", 12, 18);
        get("v2", 21, 22);
        get("v2", 23, 24);
        assertValid();
    }

    @Test
    void anUnknownDeleteMayTakeEffectLate() {
        put("v1", 0, 1);
        deleteUnknown(2);
        get("v1", 10, 11);
        get(null, 20, 21);
        get(null, 22, 23);
        assertValid();
    }

    @Test
    void failedAndUnknownReadsAreIgnored() {
        put("v1", 0, 1);
        add(2, Type.GET, "k", null, 2, 3, Outcome.UNKNOWN);
        add(2, Type.GET, "k", null, 4, 5, Outcome.FAIL);
        get("v1", 6, 7);
        assertValid();
    }

    @Test
    void aValueNoWriteWroteIsNamed() {
        put("v1", 0, 1);
        get("ghost", 2, 3);
        var v = assertOnly(Rule.VALUE_NEVER_WRITTEN);
        assertTrue(v.explanation().contains("no write of this key wrote"), v::toString);
        assertTrue(v.toString().startsWith("value never written on key \"k\": get #2 by process 2"), v::toString);
    }

    @Test
    void aValueWrittenToAnotherKeyIsNeverWrittenHere() {
        add(1, Type.PUT, "a", "v1", 0, 1, Outcome.OK);
        add(2, Type.GET, "b", "v1", 2, 3, Outcome.OK);
        var v = assertOnly(Rule.VALUE_NEVER_WRITTEN);
        assertEquals("b", v.key());
    }

    @Test
    void theValueOfARefusedWriteIsNeverWritten() {
        putRefused("v1", 0, 1);
        get("v1", 2, 3);
        var v = assertOnly(Rule.VALUE_NEVER_WRITTEN);
        assertTrue(v.explanation().contains("refused"), v::toString);
        assertEquals(2, v.operations().size());
    }

    @Test
    void aValueReadBeforeItsWriteWasInvokedIsNeverWritten() {
        get("v1", 0, 1);
        put("v1", 2, 3);
        var v = assertOnly(Rule.VALUE_NEVER_WRITTEN);
        assertTrue(v.explanation().contains("invoked only after the read had completed"), v::toString);
    }

    @Test
    void aStaleReadAfterAnAcknowledgedOverwriteIsALostWrite() {
        put("v1", 0, 1);
        Operation v2 = put("v2", 2, 3);
        Operation read = get("v1", 4, 5);
        var v = assertOnly(Rule.ACKNOWLEDGED_WRITE_LOST);
        assertTrue(v.operations().containsAll(List.of(v2, read)), v::toString);
        assertEquals("acknowledged write lost on key \"k\": get #3 by process 2 [invoked 4.000 ms, completed 5.000 ms,"
                + " returned \"v1\"] began after put #2 of \"v2\" by process 1 [invoked 2.000 ms, acknowledged 3.000 ms]"
                + " was acknowledged, yet returned \"v1\", and \"v1\" is older than \"v2\": put #1 of \"v1\" by process 1"
                + " [invoked 0.000 ms, acknowledged 1.000 ms] completed before put #2 of \"v2\" by process 1"
                + " [invoked 2.000 ms, acknowledged 3.000 ms] began", v.toString());
    }

    @Test
    void aValueReadAfterAnAcknowledgedDeleteIsALostWrite() {
        put("v1", 0, 1);
        delete(2, 3);
        get("v1", 4, 5);
        assertOnly(Rule.ACKNOWLEDGED_WRITE_LOST);
    }

    @Test
    void absentAfterAnAcknowledgedPutIsALostWrite() {
        put("v1", 0, 1);
        get(null, 2, 3);
        var v = assertOnly(Rule.ACKNOWLEDGED_WRITE_LOST);
        assertTrue(v.explanation().contains("no delete of the key was invoked"), v::toString);
    }

    @Test
    void absentFromADeleteOlderThanAnAcknowledgedPutIsALostWrite() {
        delete(0, 1);
        put("v1", 2, 3);
        get(null, 4, 5);
        assertOnly(Rule.ACKNOWLEDGED_WRITE_LOST);
    }

    @Test
    void absentFromOneOfSeveralOldDeletesIsALostWrite() {
        delete(0, 1);
        put("v0", 1, 2);
        delete(3, 4);
        put("v1", 5, 6);
        get(null, 7, 8);
        var v = assertOnly(Rule.ACKNOWLEDGED_WRITE_LOST);
        assertTrue(v.explanation().contains("delete #3"), v::toString);
    }

    @Test
    void twoConcurrentAcknowledgedWritesSeenInOppositeOrdersIsALostWrite() {
        // Both reads began after the write they did not return was acknowledged: whichever write
        // won under last-write-wins, one read lost it.
        put("v1", 0, 10);
        put("v2", 0, 20);
        get("v2", 11, 30);
        get("v1", 21, 30);
        assertOnly(Rule.ACKNOWLEDGED_WRITE_LOST);
    }

    @Test
    void goingBackToAnOlderValueAfterAReadSawTheNewerIsNonMonotonic() {
        put("v1", 0, 10);
        putUnknown("v2", 20);
        Operation sawNew = get("v2", 25, 27);
        Operation wentBack = get("v1", 30, 31);
        var v = assertOnly(Rule.NON_MONOTONIC_READ);
        assertTrue(v.operations().containsAll(List.of(sawNew, wentBack)), v::toString);
        assertTrue(v.explanation().startsWith("get #4"), v::toString);
    }

    @Test
    void alternatingBetweenTwoConcurrentWritesIsNonMonotonic() {
        // Neither write is ordered before the other, but once the second read saw v2 after a read
        // saw v1, v2 is the newer: going back to v1 breaks that.
        putUnknown("v1", 0);
        putUnknown("v2", 0);
        get("v1", 10, 11);
        get("v2", 12, 13);
        assertValid();
        get("v1", 14, 15);
        assertOnly(Rule.NON_MONOTONIC_READ);
    }

    @Test
    void absentAfterAReadOfAValueIsNonMonotonic() {
        putUnknown("v1", 0);
        get("v1", 10, 11);
        get(null, 12, 13);
        assertOnly(Rule.NON_MONOTONIC_READ);
    }

    @Test
    void absentFromADeleteOlderThanAValueAlreadyReadIsNonMonotonic() {
        delete(0, 1);
        putUnknown("v1", 2);
        get("v1", 10, 11);
        get(null, 12, 13);
        assertOnly(Rule.NON_MONOTONIC_READ);
    }

    @Test
    void aValueAfterAReadOfTheNewerDeleteIsNonMonotonic() {
        put("v1", 0, 1);
        deleteUnknown(2);
        deleteUnknown(3);
        get(null, 10, 11); // one of two deletes, both newer than v1
        get("v1", 12, 13);
        assertOnly(Rule.NON_MONOTONIC_READ);
    }

    @Test
    void valueAbsentValueIsNonMonotonicWhenOnlyOneDeleteCanExplainTheAbsence() {
        putUnknown("v1", 0);
        deleteUnknown(0);
        get("v1", 10, 11);
        get(null, 12, 13);
        assertValid();
        get("v1", 14, 15);
        assertOnly(Rule.NON_MONOTONIC_READ);
    }

    @Test
    void keysAreCheckedSeparately() {
        add(1, Type.PUT, "a", "a1", 0, 1, Outcome.OK);
        add(1, Type.PUT, "b", "b1", 0, 1, Outcome.OK);
        add(2, Type.GET, "a", "a1", 2, 3, Outcome.OK);
        add(2, Type.GET, "b", null, 2, 3, Outcome.OK);
        var result = check();
        assertEquals(1, result.violations().size(), result.toString());
        assertEquals("b", result.violations().getFirst().key());
        assertTrue(result.report(5).startsWith("4 operations on 2 keys: 1 violation\n  acknowledged write lost on key \"b\""),
                result.toString());
    }

    @Test
    void aValueWrittenTwiceIsRefused() {
        put("v1", 0, 1);
        putUnknown("v1", 2);
        var e = assertThrows(IllegalArgumentException.class, this::check);
        assertTrue(e.getMessage().contains("written twice"), e.getMessage());
    }

    @Test
    void theReportListsAtMostTheViolationsAskedFor() {
        put("v1", 0, 1);
        for (int i = 0; i < 5; i++) add(2, Type.GET, "k" + i, "ghost", 2, 3, Outcome.OK);
        var result = check();
        assertEquals(5, result.violations().size());
        assertTrue(result.report(2).endsWith("... and 3 more"), result.report(2));
    }
}
