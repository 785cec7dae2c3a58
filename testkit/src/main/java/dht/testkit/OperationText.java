package dht.testkit;

import java.util.Locale;

/** Operations, values and times in words, times in milliseconds since the history's first invoke. */
final class OperationText {
    private static final int VALUE_CHARS = 40;
    private final long origin;

    OperationText(long origin) {
        this.origin = origin;
    }

    /** For example: put #7 of "v1" by process 2 [invoked 0.000 ms, acknowledged 1.200 ms]. */
    String op(Operation o) {
        String what = switch (o.type()) {
            case PUT -> "put #" + o.id() + " of " + value(o.value());
            case DELETE -> "delete #" + o.id();
            case GET -> "get #" + o.id();
        };
        String end = switch (o.outcome()) {
            case OK -> (o.type() == Operation.Type.GET ? "completed " : "acknowledged ") + time(o.completeNanos())
                    + (o.type() == Operation.Type.GET ? ", returned " + value(o.value()) : "");
            case FAIL -> "refused " + time(o.completeNanos());
            case UNKNOWN -> o.completeNanos() == Operation.NEVER
                    ? "never answered" : "outcome unknown, given up " + time(o.completeNanos());
        };
        return what + " by process " + o.process() + " [invoked " + time(o.invokeNanos()) + ", " + end + "]";
    }

    /** What a write leaves in the key: its value, or absence for a delete. */
    String written(Operation write) {
        return write.type() == Operation.Type.DELETE ? "absent (delete #" + write.id() + ")" : value(write.value());
    }

    String value(String v) {
        if (v == null) return "absent";
        return "\"" + (v.length() <= VALUE_CHARS ? v : v.substring(0, VALUE_CHARS) + "...") + "\"";
    }

    String time(long nanos) {
        return nanos == Operation.NEVER ? "never" : String.format(Locale.ROOT, "%.3f ms", (nanos - origin) / 1e6);
    }
}
