package dht.bench;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;

/**
 * Parses and prints the short durations used on the command line ("30s", "500ms", "2m", "100us").
 * A bare number means seconds, like wrk.
 */
public final class Durations implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    public static Duration parse(String text) {
        String s = text.trim().toLowerCase(java.util.Locale.ROOT);
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException("not a duration: '" + text + "' (examples: 30s, 500ms, 2m)");
        }
        double n = Double.parseDouble(s.substring(0, i));
        String unit = s.substring(i);
        double nanos = switch (unit) {
            case "", "s" -> n * 1e9;
            case "ms" -> n * 1e6;
            case "us" -> n * 1e3;
            case "ns" -> n;
            case "m", "min" -> n * 60e9;
            case "h" -> n * 3600e9;
            default -> throw new IllegalArgumentException("unknown unit in duration '" + text + "' (use ns, us, ms, s, m, h)");
        };
        return Duration.ofNanos(Math.round(nanos));
    }

    /** Milliseconds with a unit that keeps three significant digits, like wrk: 812.00us, 1.20ms, 3.02s. */
    public static String formatMillis(double ms) {
        if (ms < 1) {
            return String.format(java.util.Locale.ROOT, "%.2fus", ms * 1000);
        }
        if (ms < 1000) {
            return String.format(java.util.Locale.ROOT, "%.2fms", ms);
        }
        if (ms < 60_000) {
            return String.format(java.util.Locale.ROOT, "%.2fs", ms / 1000);
        }
        return String.format(java.util.Locale.ROOT, "%.2fm", ms / 60_000);
    }

    private Durations() {
    }

    /** Picocli needs a public no-arg constructor for converters; this one is it. */
    public static final class Converter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return parse(value);
        }
    }
}
