package dht.testkit;

import java.util.List;

/**
 * One breach of a consistency rule found by {@link HistoryChecker}: which rule, on which key, the
 * operations that show it, and an explanation in words with their times.
 */
public record Violation(Rule rule, String key, List<Operation> operations, String explanation) {

    public enum Rule {
        /** A read returned a value no write wrote, only a refused write wrote, or one written only after the read. */
        VALUE_NEVER_WRITTEN("value never written"),
        /** A read that began after a write was acknowledged returned something older than that write. */
        ACKNOWLEDGED_WRITE_LOST("acknowledged write lost"),
        /** A read that began after another read completed returned something older than what that read saw. */
        NON_MONOTONIC_READ("non-monotonic read");

        private final String title;

        Rule(String title) {
            this.title = title;
        }

        /** The rule's name in words. */
        public String title() {
            return title;
        }
    }

    public Violation {
        operations = List.copyOf(operations);
    }

    @Override
    public String toString() {
        return rule.title + " on key \"" + key + "\": " + explanation;
    }
}
