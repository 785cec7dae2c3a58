import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the threads whose names match a pattern spend their samples, from an async-profiler JFR
 * recording (cpu/ctimer: every sample; wall: the samples of running or runnable threads only): the
 * methods on top of the stack (self) and those anywhere in it (inclusive), in percent of the
 * samples, optionally within a time window. The flame graphs of /admin/profile mix all threads and
 * the whole run; this answers "what was the compaction thread doing" or "what were the event loops
 * doing between these two instants". A recording of a whole node run, for example:
 *
 * <pre>
 * java -agentpath:/path/to/libasyncProfiler.so=start,event=ctimer,interval=1ms,jfr,file=cpu.jfr -jar dht.jar serve ...
 * java bench/scripts/JfrThreadProfile.java cpu.jfr 'dht-storage-compact' [FROM TO]   (FROM, TO: ISO instants, UTC)
 * </pre>
 */
public class JfrThreadProfile {
    public static void main(String[] a) throws Exception {
        if (a.length != 2 && a.length != 4) {
            System.err.println("usage: java JfrThreadProfile.java FILE.jfr THREAD_REGEX [FROM TO]");
            System.exit(2);
        }
        Instant from = a.length == 4 ? Instant.parse(a[2]) : Instant.MIN;
        Instant to = a.length == 4 ? Instant.parse(a[3]) : Instant.MAX;
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> inclusive = new HashMap<>();
        int total = 0;
        try (RecordingFile f = new RecordingFile(Path.of(a[0]))) {
            while (f.hasMoreEvents()) {
                RecordedEvent e = f.readEvent();
                String type = e.getEventType().getName();
                boolean wall = type.equals("profiler.WallClockSample");
                if (!wall && !type.equals("jdk.ExecutionSample")) continue;
                if (wall && !"STATE_RUNNABLE".equals(e.getString("state"))) continue;
                if (e.getStartTime().isBefore(from) || e.getStartTime().isAfter(to)) continue;
                RecordedThread th = e.getThread("sampledThread");
                String name = th == null ? "?" : th.getJavaName() != null ? th.getJavaName() : th.getOSName();
                if (!name.matches(a[1])) continue;
                RecordedStackTrace st = e.getStackTrace();
                if (st == null) continue;
                total++;
                List<RecordedFrame> frames = st.getFrames();
                Set<String> seen = new HashSet<>();
                for (int i = 0; i < frames.size(); i++) {
                    var m = frames.get(i).getMethod();
                    String method = m.getType().getName().replaceAll(".*\\.", "") + "." + m.getName();
                    if (i == 0) self.merge(method, 1, Integer::sum);
                    if (seen.add(method)) inclusive.merge(method, 1, Integer::sum);
                }
            }
        }
        System.out.println(total + " samples");
        print("self", self, total, 25);
        print("inclusive", inclusive, total, 40);
    }

    private static void print(String title, Map<String, Integer> counts, int total, int limit) {
        System.out.println("-- " + title);
        counts.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(limit)
                .forEach(x -> System.out.printf("%5.1f%% %s%n", 100.0 * x.getValue() / Math.max(total, 1), x.getKey()));
    }
}
