package dht.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * How Linux schedules this process's threads, read from {@code /proc}: each thread's policy and
 * nice value as "policy nice" (policy 0 is {@code SCHED_OTHER}, 5 {@code SCHED_IDLE}). Linux only;
 * callers check {@link #available()} first.
 */
public final class ThreadScheduling {
    private static final Path TASKS = Path.of("/proc/self/task");

    private ThreadScheduling() {}

    /** Whether this system has the files read here. */
    public static boolean available() {
        return Files.isReadable(TASKS);
    }

    /** "policy nice" of the thread whose {@code stat} file this is. */
    public static String policyAndNice(Path stat) throws IOException {
        String line = Files.readString(stat);
        // Fields after the command (which may hold spaces), from field 3 on: nice is 19, policy 41.
        String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
        return f[41 - 3] + " " + f[19 - 3];
    }

    /**
     * "policy nice" of each live thread of this process whose name starts with one of
     * {@code prefixes} (Linux keeps a thread's first 15 characters); a thread that ends while it
     * is read is left out.
     */
    public static List<String> ofThreadsNamed(String... prefixes) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(TASKS)) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm"));
                    for (String prefix : prefixes) {
                        if (name.startsWith(prefix)) {
                            found.add(policyAndNice(task.resolve("stat")));
                            break;
                        }
                    }
                } catch (IOException e) {
                    // the thread ended while we looked
                }
            }
        }
        return found;
    }
}
