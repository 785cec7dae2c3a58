package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash safety with real processes: a child JVM ({@link CrashChild}) writes and reports each
 * acknowledged write; the parent SIGKILLs it at random moments (some right as a flush or a
 * compaction starts), reopens the directory and checks that every acknowledged write (or a newer
 * one) is there and that every stored entry is intact. Rounds accumulate on one directory.
 */
class CrashTest {
    private static final Logger log = LoggerFactory.getLogger(CrashTest.class);
    private static final int ROUNDS = 24;

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedWriteSurvivesSigkill() throws Exception {
        long seed = System.nanoTime();
        Random r = new Random(seed);
        Map<String, Long> lastAcked = new HashMap<>();
        long nextSeq = 1;
        int leftoversSeen = 0;
        int midFlushKills = 0, midCompactionKills = 0;
        for (int round = 0; round < ROUNDS; round++) {
            SyncPolicy policy = round % 2 == 0 ? SyncPolicy.EVERY_WRITE : SyncPolicy.PERIODIC;
            String trigger = switch (round % 3) {
                case 0 -> "flushing memtable";
                case 1 -> "compacting ";
                default -> null;
            };
            long maxSeq = runAndKill(policy, nextSeq, trigger, 200 + r.nextInt(1500), r, lastAcked);
            nextSeq = maxSeq + 1000; // unacknowledged sequence numbers may have reached the store
            int leftovers = unreferencedTables();
            leftoversSeen += leftovers > 0 ? 1 : 0;
            if (leftovers > 0 && "flushing memtable".equals(trigger)) midFlushKills++;
            if (leftovers > 0 && "compacting ".equals(trigger)) midCompactionKills++;
            verify(lastAcked, seed, round);
        }
        log.info("crash test seed {}: {} rounds, {} keys checked, {} kills left an unfinished table "
                + "({} right after a flush started, {} right after a compaction started)", seed, ROUNDS,
                lastAcked.size(), leftoversSeen, midFlushKills, midCompactionKills);
        assertThat(lastAcked).as("seed %d", seed).isNotEmpty();
    }

    /** Runs one child until the trigger line (or the delay), kills it, returns the highest sequence seen. */
    private long runAndKill(SyncPolicy policy, long firstSeq, String trigger, long delayMs, Random r,
                            Map<String, Long> lastAcked) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process p = new ProcessBuilder(java, "-Xmx128m", "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), CrashChild.class.getName(), dir.toString(), policy.name(),
                Long.toString(firstSeq))
                .redirectErrorStream(true).start();
        long maxSeq = firstSeq;
        long acks = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            long deadline = Long.MAX_VALUE;
            long hardDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            boolean killed = false;
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("ACK ")) {
                    long s = Long.parseLong(line.substring(4).trim());
                    lastAcked.merge(new String(CrashChild.key(s), StandardCharsets.UTF_8), s, Math::max);
                    maxSeq = Math.max(maxSeq, s);
                    acks++;
                    if (deadline == Long.MAX_VALUE) deadline = System.nanoTime() + delayMs * 1_000_000;
                } else if (line.startsWith("ERROR") || line.contains("Exception")) {
                    if (!killed) log.warn("child: {}", line);
                }
                boolean fire = trigger != null ? line.contains(trigger) && acks > 0 : System.nanoTime() > deadline;
                if (!killed && (fire || System.nanoTime() > hardDeadline)) {
                    if (trigger != null && r.nextBoolean()) Thread.sleep(r.nextInt(20));
                    // SIGKILL via the handle: Process.destroyForcibly() would also close our end of the
                    // pipe, losing acknowledgements still in it.
                    p.toHandle().destroyForcibly();
                    killed = true;
                }
            }
            // Lines still in the pipe after the kill were acknowledged before it: all counted above.
        }
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        log.info("round: policy {}, trigger {}, {} acknowledged writes, up to seq {}", policy, trigger, acks, maxSeq);
        return maxSeq;
    }

    private int unreferencedTables() throws IOException {
        if (!Files.exists(dir.resolve(Manifest.NAME))) return 0;
        Set<Long> live = new HashSet<>(Manifest.read(NioStorageFiles.INSTANCE, dir).tables());
        try (Stream<Path> s = Files.list(dir)) {
            return (int) s.map(x -> FileNames.number(x.getFileName().toString(), FileNames.TABLE))
                    .filter(n -> n >= 0 && !live.contains(n)).count();
        }
    }

    private void verify(Map<String, Long> lastAcked, long seed, int round) throws IOException {
        try (LsmStore s = LsmStore.open(dir, CrashChild.options(SyncPolicy.EVERY_WRITE))) {
            for (var e : lastAcked.entrySet()) {
                Entry got = s.get(e.getKey().getBytes(StandardCharsets.UTF_8));
                assertThat(got).as("seed %d round %d key %s acked seq %d", seed, round, e.getKey(), e.getValue())
                        .isNotNull();
                assertThat(got.timestamp()).as("seed %d round %d key %s", seed, round, e.getKey())
                        .isGreaterThanOrEqualTo(e.getValue());
                checkIntact(got, seed, round);
            }
            List<Entry> all = new ArrayList<>();
            try (CloseableIterator<Entry> it = s.scan(new byte[0], null)) {
                while (it.hasNext()) all.add(it.next());
            }
            for (Entry e : all) checkIntact(e, seed, round);
        }
    }

    private static void checkIntact(Entry e, long seed, int round) {
        long ts = e.timestamp();
        assertThat(e.key()).as("seed %d round %d", seed, round).isEqualTo(CrashChild.key(ts));
        if (CrashChild.isDelete(ts)) {
            assertThat(e.isTombstone()).as("seed %d round %d seq %d", seed, round, ts).isTrue();
        } else {
            assertThat(e.value()).as("seed %d round %d seq %d", seed, round, ts).isEqualTo(CrashChild.value(ts));
        }
    }
}
