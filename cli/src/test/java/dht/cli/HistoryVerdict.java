package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.HistoryChecker;
import dht.testkit.Operation;
import dht.testkit.Violation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a fault run's history must show: no violation of the checker's rules; and, so that a pass
 * means something, the same history with one stale read or one invented value added after its
 * end must fail, which shows the recorded times and values give the checker what it needs to
 * see a lost write.
 */
final class HistoryVerdict {
    private HistoryVerdict() {
    }

    /**
     * Fails with the violations when the history breaks a rule, after writing every operation to
     * {@code target/fault-runs/<name>.history} (one per line, by invoke time) to look into.
     */
    static HistoryChecker.Result assertNoViolation(List<Operation> history, String name) throws IOException {
        HistoryChecker.Result result = HistoryChecker.check(history);
        if (!result.valid()) {
            Path file = Path.of("target", "fault-runs", name.replace(' ', '-') + ".history");
            Files.createDirectories(file.getParent());
            Files.write(file, history.stream().map(Operation::toString).toList());
            assertThat(result.valid()).as("%s: %s\nevery operation: %s", name, result.report(20), file.toAbsolutePath()).isTrue();
        }
        return result;
    }

    /**
     * Adds, after the history's last answer, a read returning a value that an acknowledged
     * overwrite replaced (a lost write) and a read of a value never written: the checker must name each.
     */
    static void assertCheckerCatchesTamperingWith(List<Operation> history) {
        long end = history.stream().mapToLong(Operation::completeNanos).filter(t -> t != Operation.NEVER).max().orElseThrow() + 1;
        long id = history.stream().mapToLong(Operation::id).max().orElseThrow();
        Operation older = null;
        for (Operation w : history) {
            if (w.type() != Operation.Type.PUT || w.outcome() != Operation.Outcome.OK) continue;
            boolean overwritten = history.stream().anyMatch(o -> o.isWrite() && o.key().equals(w.key())
                    && o.outcome() == Operation.Outcome.OK && o.invokeNanos() > w.completeNanos());
            if (overwritten) {
                older = w;
                break;
            }
        }
        assertThat(older).as("an acknowledged PUT overwritten by a later acknowledged write").isNotNull();

        List<Operation> lost = new ArrayList<>(history);
        Operation stale = new Operation(id + 1, -1, Operation.Type.GET, older.key(), older.value(), end, end + 1, Operation.Outcome.OK);
        lost.add(stale);
        HistoryChecker.Result r = HistoryChecker.check(lost);
        assertThat(r.violations()).as("a read of %s after its overwrite was acknowledged", older)
                .anyMatch(v -> v.rule() == Violation.Rule.ACKNOWLEDGED_WRITE_LOST && v.operations().contains(stale));

        List<Operation> invented = new ArrayList<>(history);
        Operation never = new Operation(id + 1, -1, Operation.Type.GET, older.key(), "never-written", end, end + 1, Operation.Outcome.OK);
        invented.add(never);
        assertThat(HistoryChecker.check(invented).violations()).as("a read of a value no one wrote")
                .anyMatch(v -> v.rule() == Violation.Rule.VALUE_NEVER_WRITTEN && v.operations().contains(never));
    }
}
