package dht.node;

import dht.node.cluster.Cluster;
import java.util.Arrays;

/**
 * The node's {@code -D} settings (given to {@code bin/dht serve} in {@code DHT_JAVA_OPTS}), read
 * strictly: absent means the default, and a value the node does not know is refused with a
 * {@link BadSettingException} that names the setting and what it takes, never read as something
 * else (before, some fell back to their default without a word, and others failed with a stack
 * trace, some only after the store had been opened). {@link #checkAll()} reads every one before a
 * node starts anything, so that a bad one is reported first.
 */
public final class JvmSettings {
    private JvmSettings() {
    }

    /** A whole number from {@code min} to {@code max}, or {@code fallback} when unset; spaces around it are allowed. */
    public static long wholeNumber(String property, long fallback, long min, long max, String unit) {
        String v = System.getProperty(property);
        if (v == null) return fallback;
        try {
            long n = Long.parseLong(v.strip());
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BadSettingException("-D" + property + " must be a whole number of " + unit + " from " + min
                + " to " + max + ", not '" + v + "'");
    }

    /** One of {@code allowed} (case-insensitive, returned as written there), or {@code fallback} when unset. */
    public static String oneOf(String property, String fallback, String... allowed) {
        String v = System.getProperty(property);
        if (v == null) return fallback;
        for (String a : allowed) {
            if (a.equalsIgnoreCase(v.strip())) return a;
        }
        String last = allowed[allowed.length - 1];
        String choices = allowed.length == 1 ? last
                : String.join(", ", Arrays.asList(allowed).subList(0, allowed.length - 1)) + " or " + last;
        throw new BadSettingException("-D" + property + " must be " + choices + ", not '" + v + "'");
    }

    /** {@code true} or {@code false} (case-insensitive), or {@code fallback} when unset. */
    public static boolean flag(String property, boolean fallback) {
        String v = oneOf(property, null, "true", "false");
        return v == null ? fallback : v.equals("true");
    }

    /** Reads every setting a node takes, so that a bad one is refused before the node starts anything. */
    static void checkAll() {
        CoreLocalExecutor.mode();
        BusyPoll.windowMicros();
        StorageExecutors.kind();
        StorageExecutors.queueKind();
        StorageExecutors.batchHandOff(false);
        StorageExecutors.poolSize();
        Production.backgroundPriority();
        Production.yieldEveryEntries();
        Production.compactionBytesPerSecond();
        Production.acceptMissingTables();
        Cluster.checkSettings();
    }
}
