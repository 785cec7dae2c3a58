package dht.node.cluster;

import static dht.node.cluster.HintedHandoffTest.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hinted handoff with its hints on disk ({@link HintFiles}): restarts, damage, and the bounds. */
class DurableHintsTest {
    static final Duration GRACE = Duration.ofDays(1);
    final EventLoopGroup loops = new DefaultEventLoopGroup(1);
    final RecordingReplica peer = new RecordingReplica("http://peer:1");
    final Set<String> up = ConcurrentHashMap.newKeySet();
    final AtomicLong now = new AtomicLong(1_800_000_000_000L);
    final List<HintedHandoff> open = new ArrayList<>();
    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        open.forEach(HintedHandoff::close);
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    HintedHandoff start(HintSettings settings) {
        return start(settings, peer);
    }

    HintedHandoff start(HintSettings settings, Replica replica) {
        return start(settings, replica, 64L << 20);
    }

    /** The hint files of the last handoff started. */
    HintFiles files;

    HintedHandoff start(HintSettings settings, Replica replica, long maxBytes) {
        files = new HintFiles(dir, false);
        HintedHandoff h = new HintedHandoff(Map.of(peer.url, replica), up::contains, loops.next(), maxBytes,
                HintedHandoff.REFUSAL_WINDOW, settings, GRACE, files, now::get);
        open.add(h);
        return h;
    }

    /** Closes {@code h}, as a stop does; its files stay. */
    void stop(HintedHandoff h) {
        open.remove(h);
        h.close();
    }

    /** An entry written {@code agoMillis} before now. */
    Entry entry(int i, long agoMillis) {
        return Entry.value(("k" + i).getBytes(StandardCharsets.UTF_8), new byte[100], (now.get() - agoMillis) * 1000);
    }

    List<Path> hintFiles() throws Exception {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(HintFiles.SUFFIX)).sorted().toList();
        }
    }

    @Test
    void hintsSurviveARestartAndTheirFilesGoOnceDelivered() throws Exception {
        HintedHandoff first = start(HintSettings.DEFAULTS);
        List<Entry> missed = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            missed.add(entry(i, 0));
            first.hold(peer.url, entry(i, 0));
        }
        stop(first);
        assertThat(hintFiles()).hasSize(1);

        HintedHandoff second = start(HintSettings.DEFAULTS);
        assertThat(second.counts()).isEqualTo(new HintedHandoff.Counts(300, 0, 0, 0, 300));
        assertThat(second.peerCounts().get(peer.url)).containsEntry("pending", 300L);
        up.add(peer.url);
        eventually(() -> assertThat(peer.written).containsExactlyElementsOf(missed));
        eventually(() -> assertThat(second.peerCounts().get(peer.url)).containsEntry("pending", 0L)
                .containsEntry("pendingBytes", 0L).containsEntry("delivered", 300L));
        eventually(() -> {
            try {
                assertThat(hintFiles()).isEmpty();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        stop(second);
        HintedHandoff third = start(HintSettings.DEFAULTS);
        assertThat(third.counts().waiting()).isZero();
    }

    @Test
    void aTornTailLosesOnlyTheHintItCut() throws Exception {
        HintedHandoff first = start(HintSettings.DEFAULTS);
        for (int i = 0; i < 10; i++) first.hold(peer.url, entry(i, 0));
        stop(first);
        Path file = hintFiles().getFirst();
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
            c.truncate(Files.size(file) - 20);
        }
        HintedHandoff second = start(HintSettings.DEFAULTS);
        assertThat(second.counts().waiting()).isEqualTo(9);
        second.hold(peer.url, entry(100, 0)); // into a new file: never after a torn tail
        up.add(peer.url);
        eventually(() -> assertThat(peer.written).hasSize(10).contains(entry(100, 0)).doesNotContain(entry(9, 0)));
    }

    @Test
    void aDamagedFileIsReportedAndKeptAndItsIntactHintsAreDelivered() throws Exception {
        HintedHandoff first = start(HintSettings.DEFAULTS);
        for (int i = 0; i < 200; i++) first.hold(peer.url, entry(i, 0));
        stop(first);
        Path file = hintFiles().getFirst();
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
            c.write(java.nio.ByteBuffer.wrap(new byte[] {0x55, 0x55, 0x55}), Files.size(file) / 2); // not a torn tail
        }
        HintedHandoff second = start(HintSettings.DEFAULTS);
        long waiting = second.counts().waiting();
        assertThat(waiting).isBetween(1L, 199L);
        assertThat(second.peerCounts().get(peer.url).get("damagedBytes")).isPositive();
        up.add(peer.url);
        eventually(() -> assertThat(peer.written).hasSize((int) waiting));
        assertThat(second.peerCounts().get(peer.url)).containsEntry("delivered", waiting);
        Path kept = file.resolveSibling(file.getFileName() + HintFiles.DAMAGED);
        eventually(() -> assertThat(kept).as("the damaged file, kept for inspection once done with").exists());
        assertThat(file).doesNotExist();
        stop(second);
        assertThat(start(HintSettings.DEFAULTS).counts().waiting()).as("a kept file is not read again").isZero();
    }

    @Test
    void oneHintPerKeySurvivesARestart() throws Exception {
        HintedHandoff first = start(HintSettings.DEFAULTS);
        byte[] k = "k".getBytes(StandardCharsets.UTF_8);
        long ts = now.get() * 1000;
        for (int i = 0; i < 50; i++) first.hold(peer.url, Entry.value(k, new byte[10], ts + i));
        Entry deleted = Entry.tombstone(k, ts + 100);
        first.hold(peer.url, deleted);
        stop(first);
        HintedHandoff second = start(HintSettings.DEFAULTS);
        assertThat(second.counts()).isEqualTo(new HintedHandoff.Counts(51, 0, 0, 50, 1));
        up.add(peer.url);
        eventually(() -> assertThat(peer.written).containsExactly(deleted));
    }

    @Test
    void pastThePeersBytesNewHintsAreDroppedAsFull() {
        HintedHandoff h = start(new HintSettings(Duration.ofHours(3), 1000, 1 << 20));
        for (int i = 0; i < 20; i++) h.hold(peer.url, entry(i, 0));
        Map<String, Long> c = h.peerCounts().get(peer.url);
        assertThat(c.get("pending")).isBetween(1L, 9L);
        assertThat(c.get("pendingBytes")).isLessThanOrEqualTo(1000L);
        assertThat(c.get("droppedFull")).isEqualTo(20 - c.get("pending"));
    }

    @Test
    void hintsOlderThanTheWindowAreDroppedAndTheirFilesDeleted() throws Exception {
        HintedHandoff h = start(new HintSettings(Duration.ofHours(3), 1 << 20, 1 << 20));
        h.hold(peer.url, entry(5, Duration.ofHours(4).toMillis())); // a write stamped long ago
        for (int i = 0; i < 5; i++) h.hold(peer.url, entry(i, 0));
        now.addAndGet(Duration.ofHours(2).toMillis());
        eventually(() -> assertThat(h.peerCounts().get(peer.url)).containsEntry("droppedExpired", 1L)
                .containsEntry("pending", 5L));
        assertThat(h.peerCounts().get(peer.url).get("oldestAgeMillis")).isEqualTo(Duration.ofHours(2).toMillis());
        now.addAndGet(Duration.ofHours(2).toMillis());
        eventually(() -> assertThat(h.peerCounts().get(peer.url)).containsEntry("droppedExpired", 6L)
                .containsEntry("pending", 0L).containsEntry("pendingBytes", 0L));
        eventually(() -> {
            try {
                assertThat(hintFiles()).isEmpty();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        up.add(peer.url);
        Thread.sleep(3 * HintedHandoff.CHECK_INTERVAL.toMillis());
        assertThat(peer.written).isEmpty();
    }

    @Test
    void hintsOlderThanTheTombstoneGraceAreDroppedWhateverTheWindow() throws Exception {
        HintedHandoff h = start(new HintSettings(Duration.ofDays(3), 1 << 20, 1 << 20));
        h.hold(peer.url, entry(1, GRACE.toMillis() + 1000));
        h.hold(peer.url, entry(2, 0));
        up.add(peer.url);
        eventually(() -> assertThat(peer.written).containsExactly(entry(2, 0)));
        eventually(() -> assertThat(h.peerCounts().get(peer.url)).containsEntry("droppedGrace", 1L)
                .containsEntry("delivered", 1L));
    }

    @Test
    void deliveryIsPacedToTheRate() throws Exception {
        HintedHandoff h = start(new HintSettings(Duration.ofHours(3), 1 << 20, 20_000)); // ~140 bytes a hint
        for (int i = 0; i < 300; i++) h.hold(peer.url, entry(i, 0)); // about 42 KB: two seconds at least
        long t0 = System.nanoTime();
        up.add(peer.url);
        eventually(() -> assertThat(peer.written).hasSize(300));
        // the last batch is sent after the pace of all before it
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThan(Duration.ofMillis(1500));
    }

    @Test
    void aBusyPeerIsBackedOffNotDroppedFrom() throws Exception {
        AtomicInteger busyAnswers = new AtomicInteger();
        Replica busy = new Replica() {
            @Override
            public String url() {
                return peer.url;
            }

            @Override
            public CompletableFuture<Entry> read(byte[] key) {
                throw new UnsupportedOperationException();
            }

            @Override
            public CompletableFuture<Void> write(Entry entry) {
                if (busyAnswers.incrementAndGet() <= 3) {
                    return CompletableFuture.failedFuture(new ReplicaBusyException("503"));
                }
                return peer.write(entry);
            }
        };
        HintedHandoff h = start(HintSettings.DEFAULTS, busy);
        h.hold(peer.url, entry(1, 0));
        up.add(peer.url);
        eventually(() -> assertThat(peer.written).containsExactly(entry(1, 0)));
        // backing off 250, 500, 1000 ms: no more tries than that allows
        assertThat(busyAnswers.get()).isEqualTo(4);
        eventually(() -> assertThat(h.peerCounts().get(peer.url)).containsEntry("delivered", 1L)
                .containsEntry("droppedRefused", 0L));
    }

    @Test
    void memoryHoldsAnIndexOfTheHintsNotTheirValues() throws Exception {
        int hints = 1000;
        long index = hints * (5L + Hint.OVERHEAD); // keys "kNNN": the whole in-memory budget
        HintedHandoff h = start(HintSettings.DEFAULTS, peer, index);
        List<Entry> missed = new ArrayList<>();
        for (int i = 0; i < hints; i++) { // 8 MB of values, forty times the budget
            Entry e = Entry.value(("k" + (100 + i)).getBytes(StandardCharsets.UTF_8), value(i, 8192), now.get() * 1000);
            missed.add(e);
            h.hold(peer.url, e);
        }
        assertThat(h.peerCounts().get(peer.url)).containsEntry("pending", (long) hints).containsEntry("droppedFull", 0L);
        files.awaitWritten();
        up.add(peer.url);
        eventually(() -> assertThat(peer.written).hasSize(hints));
        assertThat(peer.written).containsExactlyElementsOf(missed); // the values, read back from the files
        eventually(() -> assertThat(h.peerCounts().get(peer.url)).containsEntry("delivered", (long) hints)
                .containsEntry("pendingBytes", 0L));
    }

    @Test
    void aHintWhoseFileIsGoneIsDroppedAsLostNotDeliveredFromMemory() throws Exception {
        HintedHandoff h = start(HintSettings.DEFAULTS);
        for (int i = 0; i < 10; i++) h.hold(peer.url, entry(i, 0));
        files.awaitWritten();
        for (Path f : hintFiles()) Files.delete(f);
        h.hold(peer.url, entry(100, 0)); // into the same file, gone: its offset reads nothing either
        files.awaitWritten();
        up.add(peer.url);
        eventually(() -> assertThat(h.peerCounts().get(peer.url)).containsEntry("droppedLost", 11L)
                .containsEntry("pending", 0L).containsEntry("pendingBytes", 0L));
        assertThat(peer.written).isEmpty();
    }

    @Test
    void theHintFilesOfANodeNoLongerAPeerAreDroppedAtStartAsRemoved() throws Exception {
        RecordingReplica gone = new RecordingReplica("http://gone:1");
        files = new HintFiles(dir, false);
        HintedHandoff first = new HintedHandoff(Map.of(peer.url, peer, gone.url, gone), up::contains, loops.next(),
                64L << 20, HintedHandoff.REFUSAL_WINDOW, HintSettings.DEFAULTS, GRACE, files, now::get);
        open.add(first);
        for (int i = 0; i < 20; i++) first.hold(peer.url, entry(i, 0));
        for (int i = 0; i < 30; i++) first.hold(gone.url, entry(i, 0));
        stop(first);
        assertThat(hintFiles()).hasSize(2);

        // Started again with `gone` out of the cluster (removed while this node was down).
        HintedHandoff second = start(HintSettings.DEFAULTS);
        assertThat(second.counts()).isEqualTo(new HintedHandoff.Counts(20, 0, 30, 0, 20));
        assertThat(second.peerCounts().get(gone.url)).containsEntry("droppedRemoved", 30L).containsEntry("pending", 0L);
        assertThat(second.peerCounts().get(peer.url)).containsEntry("droppedRemoved", 0L).containsEntry("pending", 20L);
        assertThat(files.peerDir(gone.url)).doesNotExist();
        assertThat(hintFiles()).hasSize(1).allMatch(f -> f.startsWith(files.peerDir(peer.url)));
        up.add(peer.url);
        up.add(gone.url);
        eventually(() -> assertThat(peer.written).hasSize(20));
        assertThat(gone.written).isEmpty();
    }

    private static byte[] value(int i, int length) {
        byte[] v = new byte[length];
        java.util.Arrays.fill(v, (byte) i);
        v[0] = (byte) (i >> 8);
        return v;
    }
}
