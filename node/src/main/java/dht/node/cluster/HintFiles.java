package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.RecordLog;
import java.io.IOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hints' files: {@code DIR/<peer>/NNNNNN.hints}, the peer's URL percent-encoded, each file a
 * {@link RecordLog} of the entries held for that peer, numbered in the order written. A file is
 * written by one thread of its own, in the order the calls came, so that {@link #append} and
 * {@link #delete} never block the caller (an event loop) on the disk. With {@code syncEveryWrite}
 * the appends queued together are fsynced together, at once (as the log's group commit); in any
 * case the open files are fsynced every second (a SIGKILL loses nothing that reached write()).
 * Records are read back ({@link #read}) on the same thread, so a read always comes after the append
 * that wrote its record. A file an append failed on takes no more appends (its offsets could be
 * wrong after a partial write).
 */
final class HintFiles implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HintFiles.class);
    static final String SUFFIX = ".hints";
    /** Added to the name of a hint file found damaged, once done with: never read again, deleted only with its node's files. */
    static final String DAMAGED = ".damaged";

    private final Path dir;
    private final boolean syncEveryWrite;
    private final ScheduledExecutorService writer;
    // only touched on the writer thread
    private final Map<String, Open> open = new HashMap<>();
    private final List<Entry> group = new ArrayList<>();

    /** Per peer, the file an append failed on. */
    private final Map<String, Long> broken = new HashMap<>();
    private boolean dirty;
    private final AtomicBoolean syncQueued = new AtomicBoolean();

    private record Open(long segment, RecordLog.Writer file) {}

    HintFiles(Path dir, boolean syncEveryWrite) {
        this.dir = dir;
        this.syncEveryWrite = syncEveryWrite;
        this.writer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dht-hint-files");
            t.setDaemon(true);
            return t;
        });
        writer.scheduleWithFixedDelay(this::syncAll, 1, 1, TimeUnit.SECONDS);
    }

    /** Receives the hints found at start, file by file in the order written, with their offsets. */
    interface Sink {
        void hint(String peer, long segment, long offset, Entry entry);
    }

    /** Told, on the writer thread, where an appended record starts, or -1 if it could not be written. */
    interface Written {
        void at(long offset);
    }

    /** Per peer, the bytes of its files the last {@link #replay} skipped as damaged (not a torn tail). */
    private final Map<String, Long> damagedBytes = new HashMap<>();
    /** Files found damaged: once done with, each is kept as {@link #DAMAGED} for inspection, not deleted. */
    private final java.util.Set<Path> damagedFiles = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Reads every hint file of the peers in {@code peers} (a torn tail dropped, damage reported);
     * returns, per peer, the numbers of the files found, in order, so that new files come after them.
     */
    Map<String, List<Long>> replay(java.util.Set<String> peers, Sink sink) throws IOException {
        damagedBytes.clear();
        Map<String, List<Long>> last = new HashMap<>();
        if (!Files.isDirectory(dir)) return last;
        try (Stream<Path> peerDirs = Files.list(dir)) {
            for (Path pd : (Iterable<Path>) peerDirs::iterator) {
                String peer = URLDecoder.decode(pd.getFileName().toString(), StandardCharsets.UTF_8);
                if (!peers.contains(peer)) {
                    log.warn("hints in {} are for {}, not a peer of this node: left alone", pd, peer);
                    continue;
                }
                TreeMap<Long, Path> segments = new TreeMap<>();
                try (Stream<Path> files = Files.list(pd)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        long n = number(f);
                        if (n >= 0) segments.put(n, f);
                    }
                }
                for (Map.Entry<Long, Path> s : segments.entrySet()) {
                    RecordLog.ReadResult r = RecordLog.readWithOffsets(s.getValue(), (offset, e) -> sink.hint(peer, s.getKey(), offset, e));
                    if (r.damaged()) {
                        damagedBytes.merge(peer, r.skippedBytes(), Long::sum);
                        damagedFiles.add(s.getValue().toAbsolutePath().normalize());
                        log.warn("hint file {} of {} is damaged: {} bytes skipped, their hinted writes lost ({} read back; "
                                + "anti-entropy and read repair remain)", s.getValue(), peer, r.skippedBytes(), r.records());
                    }
                }
                if (!segments.isEmpty()) last.put(peer, List.copyOf(segments.keySet()));
            }
        }
        return last;
    }

    /** Per peer, the bytes the last {@link #replay} skipped in damaged files: the hints in them are lost. */
    Map<String, Long> damagedBytes() {
        return Map.copyOf(damagedBytes);
    }

    /**
     * Deletes the hint files of every node not in {@code peers}: it left or was removed from the
     * cluster while this node was down, so they can never be delivered. Returns, per such node,
     * the records its files held (what a start that read them would have dropped as removed), and
     * logs them in one line. Called at start, before {@link #replay}; a file that cannot be read
     * or deleted is reported and left.
     */
    Map<String, Long> dropOthers(java.util.Set<String> peers) {
        Map<String, Long> dropped = new TreeMap<>();
        if (!Files.isDirectory(dir)) return dropped;
        try (Stream<Path> peerDirs = Files.list(dir)) {
            for (Path pd : (Iterable<Path>) peerDirs::iterator) {
                String peer = URLDecoder.decode(pd.getFileName().toString(), StandardCharsets.UTF_8);
                if (peers.contains(peer) || !Files.isDirectory(pd)) continue;
                long records = 0;
                try (Stream<Path> files = Files.list(pd)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        if (f.getFileName().toString().endsWith(DAMAGED)) Files.delete(f); // its node is gone
                        if (number(f) < 0) continue;
                        records += RecordLog.read(f, e -> { }).records();
                        Files.delete(f);
                    }
                    Files.deleteIfExists(pd);
                } catch (IOException | RuntimeException e) {
                    log.warn("hints in {} are for {}, no longer in the cluster, and not all deleted: {}", pd, peer, e.toString());
                }
                dropped.merge(peer, records, Long::sum);
            }
        } catch (IOException e) {
            log.warn("hint files in {} not listed: {}", dir, e.toString());
        }
        if (!dropped.isEmpty()) {
            log.info("dropped the hint files in {} of {}, no longer in the cluster: {} hinted write(s)", dir,
                    dropped.keySet(), dropped.values().stream().mapToLong(Long::longValue).sum());
        }
        return dropped;
    }

    /**
     * Writes {@code e} at the end of file {@code segment} of {@code peer} (created if new), then
     * tells {@code written} where; not at all once closed.
     */
    void append(String peer, long segment, Entry e, Written written) {
        run(() -> {
            long at = -1;
            try {
                if (Long.valueOf(segment).equals(broken.get(peer))) throw new IOException("an earlier write to it failed");
                Open o = open.get(peer);
                if (o == null || o.segment() != segment) {
                    if (o != null) { // a file left is synced once: the periodic sync sees only open ones
                        o.file().sync();
                        o.file().close();
                    }
                    Path pd = peerDir(peer);
                    Files.createDirectories(pd);
                    o = new Open(segment, RecordLog.create(file(peer, segment)));
                    open.put(peer, o);
                }
                group.clear();
                group.add(e);
                long start = o.file().bytes();
                o.file().append(group);
                at = start;
                dirty = true;
            } catch (IOException | RuntimeException ex) {
                Long before = broken.put(peer, segment);
                if (before == null || before != segment) { // told once per file
                    log.warn("hint for {} not written to file {} (kept in memory only): {}", peer, segment, ex.toString());
                }
            }
            written.at(at);
        });
        // one fsync for the appends queued before it (group commit); the periodic one catches a race
        if (syncEveryWrite && syncQueued.compareAndSet(false, true)) {
            run(() -> {
                syncQueued.set(false);
                syncAll();
            });
        }
    }

    /**
     * Fills each null of {@code into} with the record at {@code offsets[i]} of file
     * {@code segments[i]} of {@code peer}; it stays null if what is there is not an intact record
     * (or the file is gone).
     */
    CompletableFuture<Entry[]> read(String peer, long[] segments, long[] offsets, Entry[] into) {
        try {
            return CompletableFuture.supplyAsync(() -> {
                Map<Long, FileChannel> channels = new HashMap<>();
                try {
                    for (int i = 0; i < into.length; i++) {
                        if (into[i] == null) into[i] = readOne(peer, segments[i], offsets[i], channels);
                    }
                } finally {
                    for (FileChannel c : channels.values()) {
                        try {
                            c.close();
                        } catch (IOException e) {
                            log.debug("hint file of {} not closed: {}", peer, e.toString());
                        }
                    }
                }
                return into;
            }, writer);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private Entry readOne(String peer, long segment, long offset, Map<Long, FileChannel> channels) {
        try {
            FileChannel c = channels.get(segment);
            if (c == null) channels.put(segment, c = FileChannel.open(file(peer, segment), StandardOpenOption.READ));
            return RecordLog.readAt(c, offset);
        } catch (IOException e) {
            log.debug("hint at {} of file {} of {} not read: {}", offset, segment, peer, e.toString());
            return null;
        }
    }

    /** Deletes file {@code segment} of {@code peer}: every hint in it was delivered or dropped. */
    void delete(String peer, long segment) {
        run(() -> {
            try {
                Open o = open.get(peer);
                if (o != null && o.segment() == segment) {
                    o.file().close();
                    open.remove(peer);
                }
                Path f = file(peer, segment);
                if (damagedFiles.remove(f.toAbsolutePath().normalize())) {
                    Path kept = f.resolveSibling(f.getFileName() + DAMAGED);
                    Files.move(f, kept, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    log.info("hint file {} of {}: its readable hints are done with; kept for inspection as {}", segment, peer, kept);
                } else {
                    Files.deleteIfExists(f);
                }
            } catch (IOException | RuntimeException ex) {
                log.warn("hint file {} of {} not deleted: {}", segment, peer, ex.toString());
            }
        });
    }

    /** Runs {@code task} on the writer thread; after {@link #close()}, not at all (the files are closed). */
    private void run(Runnable task) {
        try {
            writer.execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("hint files closed: {} not run", task);
        }
    }

    private void syncAll() {
        if (!dirty) return;
        dirty = false;
        for (Open o : open.values()) {
            try {
                o.file().sync();
            } catch (IOException | RuntimeException ex) {
                log.warn("hint file {} not synced: {}", o.segment(), ex.toString());
            }
        }
    }

    Path peerDir(String peer) {
        return dir.resolve(URLEncoder.encode(peer, StandardCharsets.UTF_8));
    }

    Path file(String peer, long segment) {
        return peerDir(peer).resolve(String.format("%06d%s", segment, SUFFIX));
    }

    private static long number(Path f) {
        String name = f.getFileName().toString();
        if (!name.endsWith(SUFFIX)) return -1;
        try {
            return Long.parseLong(name.substring(0, name.length() - SUFFIX.length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Writes what is queued, syncs and closes every file. */
    @Override
    public void close() {
        writer.execute(() -> {
            syncAll();
            for (Open o : open.values()) {
                try {
                    o.file().close();
                } catch (IOException e) {
                    log.warn("hint file {} not closed: {}", o.segment(), e.toString());
                }
            }
            open.clear();
        });
        writer.shutdown();
        try {
            writer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Completes once everything appended so far is written and synced; fails once closed. */
    CompletableFuture<Void> synced() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            writer.execute(() -> {
                syncAll();
                done.complete(null);
            });
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(e);
        }
        return done;
    }

        /** For tests: waits until everything queued so far is written. */
    void awaitWritten() throws Exception {
        writer.submit(() -> null).get();
    }

}
