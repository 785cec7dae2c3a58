package dht.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * picocli's converters for the counts a key command takes ({@code --ttl}, {@code --ack},
 * {@code --from}): decimal digits only, as the HTTP API takes them. Java's own parsing takes a sign
 * ("+5") and the digits of other scripts ("５"), which the node refuses with 400; here they are bad
 * usage (exit 2) before anything is sent.
 */
final class DecimalDigits {
    private DecimalDigits() {
    }

    static final class ToInt implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return (int) parse(value, Integer.MAX_VALUE);
        }
    }

    static final class ToLong implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return parse(value, Long.MAX_VALUE);
        }
    }

    private static long parse(String value, long max) {
        long v;
        try {
            v = Long.parseLong(checked(value));
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is too large");
        }
        if (v > max) throw new TypeConversionException("'" + value + "' is too large");
        return v;
    }

    private static String checked(String value) {
        if (value.isEmpty() || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new TypeConversionException("'" + value + "' is not a whole number in decimal digits (no sign)");
        }
        return value;
    }
}
