package dht.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What opening a store does before it serves: reads the manifest, refuses to go on when files it
 * names are missing (unless {@link StoreOptions#acceptMissingTables}), removes the leftovers of
 * interrupted flushes and compactions, opens the live tables (salvaging a damaged one into a new
 * table, the damaged file kept as {@code .corrupt}), replays the logs into tables, starts a new
 * log and writes the manifest that names them all.
 *
 * <p>Invariants: runs once, on the opening thread, with the directory lock held and before any
 * other thread uses the store, so it takes no lock. No file is changed before the missing-files
 * check passes; a damaged table or log is renamed aside, never deleted; a replayed log is deleted
 * only after the manifest naming its tables is durable. Logs under {@link LsmStore}'s name.
 */
final class Recovery {
    private static final Logger log = LoggerFactory.getLogger(LsmStore.class);

    private final Path dir;
    private final StorageFiles files;
    private final StoreOptions opt;
    private final VersionSet versions;

    Recovery(Path dir, StoreOptions opt, VersionSet versions) {
        this.dir = dir;
        this.files = opt.files();
        this.opt = opt;
        this.versions = versions;
    }

    /**
     * Recovers the store: on return the versions hold the first version, the manifest names its
     * tables and the new log, handed to {@code newLog} as soon as it exists (so that a failed open
     * can close it).
     */
    void run(Consumer<WalWriter> newLog) throws IOException {
        long t0 = System.nanoTime();
        boolean hasManifest = Files.exists(dir.resolve(Manifest.NAME));
        Manifest m = hasManifest ? Manifest.read(files, dir) : new Manifest(1, 0, List.of());
        List<Path> listing = files.list(dir);
        checkFilesPresent(m, hasManifest, listing);
        Set<Long> live = new HashSet<>(m.tables());
        TreeMap<Long, Path> logs = new TreeMap<>();
        long maxSeen = 0;
        for (Path p : listing) {
            String name = p.getFileName().toString();
            long tn = FileNames.number(name, FileNames.TABLE);
            long ln = FileNames.number(name, FileNames.LOG);
            maxSeen = Math.max(maxSeen, Math.max(tn, ln));
            if (name.endsWith(".tmp")) {
                log.info("removing leftover {}", p);
                files.delete(p);
            } else if (tn >= 0 && !live.contains(tn)) {
                log.info("removing table {} left by an interrupted flush or compaction", p);
                files.delete(p);
            } else if (ln >= 0 && ln < m.logNumber()) {
                log.info("removing log {} already flushed to a table", p);
                files.delete(p);
            } else if (ln >= 0) {
                logs.put(ln, p);
            }
        }
        versions.startFileNumbersAt(Math.max(m.nextFile(), maxSeen + 1));

        List<Table> tables = new ArrayList<>();
        for (long n : m.tables()) {
            Path p = FileNames.table(dir, n);
            Path aside = FileNames.corrupt(p);
            if (!Files.exists(p)) {
                if (Files.exists(aside)) {
                    // Set aside by an open that stopped before its manifest: salvage it again.
                    log.warn("table {} named by the manifest was set aside as {} by an interrupted open; salvaging it again",
                            p.getFileName(), aside.getFileName());
                    Table salvaged = salvage(aside, null);
                    if (salvaged != null) tables.add(salvaged);
                } else {
                    log.error("table {} named by the manifest is missing; going on without it as asked "
                            + "(acceptMissingTables): its entries are lost", p);
                }
                continue;
            }
            try {
                tables.add(Table.open(files, p, n, versions.counters.errors));
            } catch (CorruptionException e) {
                // Renamed first: the damaged file is never deleted, and until the manifest below
                // replaces this one, a crash leads the next open back to it (the branch above).
                files.rename(p, aside);
                Table salvaged = salvage(aside, e);
                if (salvaged != null) tables.add(salvaged);
            }
        }

        List<Path> damagedLogs = new ArrayList<>();
        for (var le : logs.entrySet()) {
            // Replayed memtables belong to no version: each is freed here once written (or on failure).
            List<Memtable> full = new ArrayList<>();
            full.add(versions.newMemtable(le.getKey()));
            try {
                WalReader.Outcome replayed = WalReader.replay(files, le.getValue(), e -> {
                    Memtable cur = full.getLast();
                    cur.put(e);
                    if (cur.bytes() >= opt.memtableBytes()) full.add(versions.newMemtable(le.getKey()));
                });
                if (replayed.damaged()) damagedLogs.add(le.getValue());
                for (Memtable fm : full) {
                    if (fm.isEmpty()) continue;
                    long n = versions.newFileNumber();
                    Table t = MemtableFlush.writeTable(files, dir, opt, fm, n, versions.counters.errors, false);
                    if (t != null) tables.add(t);
                }
            } finally {
                for (Memtable fm : full) fm.discard();
            }
        }

        long walNumber = versions.newFileNumber();
        newLog.accept(new WalWriter(walNumber, FileNames.log(dir, walNumber), files.create(FileNames.log(dir, walNumber))));
        files.syncDirectory(dir);
        versions.writeRecoveredManifest(walNumber, tables);
        for (Path p : logs.values()) {
            // A damaged log (intact records after a bad one) is kept beside the store, never
            // deleted by it, like a damaged table: its intact records are in tables now, and the
            // damaged bytes are evidence. A log that merely ended torn is a crash's normal trace.
            if (damagedLogs.contains(p)) {
                files.rename(p, FileNames.corrupt(p));
            } else {
                files.delete(p);
            }
        }
        // A crash before this sync may bring a damaged log back under its old name; the manifest
        // names it flushed, so the next open deletes it: its records are safe in tables, only the
        // evidence is lost in that window.
        if (!logs.isEmpty()) files.syncDirectory(dir);
        versions.start(new Version(versions.newMemtable(walNumber), List.of(), tables));
        log.info("opened store {}: {} tables, {} bytes, replayed {} logs in {} ms", dir, tables.size(),
                tables.stream().mapToLong(t -> t.sizeBytes).sum(), logs.size(), (System.nanoTime() - t0) / 1_000_000);
    }

    /**
     * Fails the open, before any file is touched, when files the store needs are not there: a
     * table the manifest names is missing (neither it nor its set-aside {@code .corrupt} copy), or
     * the log it names as the oldest still needed, or tables exist with no manifest at all (every
     * open writes one, so it was lost). Going on would
     * serve without their entries and, worse, delete a table put back later as a leftover; an
     * operator who moved a file away by mistake can put it back instead. With
     * {@link StoreOptions#acceptMissingTables} a missing table is logged and the open goes on.
     */
    private void checkFilesPresent(Manifest m, boolean hasManifest, List<Path> listing) throws MissingFilesException {
        if (!hasManifest) {
            List<String> orphans = new ArrayList<>();
            for (Path p : listing) {
                if (FileNames.number(p.getFileName().toString(), FileNames.TABLE) >= 0) orphans.add(p.getFileName().toString());
            }
            if (!orphans.isEmpty()) {
                throw new MissingFilesException(dir + ": holds tables (" + String.join(", ", orphans.stream().sorted().toList())
                        + ") but no " + Manifest.NAME + ", which names the live ones; nothing was changed. Put the "
                        + Manifest.NAME + " back", false);
            }
            return;
        }
        Set<Path> present = new HashSet<>();
        for (Path p : listing) present.add(p.getFileName());
        // The log the manifest names as the oldest still needed may hold acknowledged writes that
        // are in no table: it is created before any manifest names it (at open and at each log
        // switch; writing a manifest syncs the directory, its entry with it) and deleted only once
        // a later manifest names a newer one. Only the log itself counts: open replays no
        // .log.corrupt, and none is ever made of a log the manifest still names.
        Path oldestLog = m.logNumber() > 0 ? FileNames.log(dir, m.logNumber()) : null;
        boolean logMissing = oldestLog != null && !present.contains(oldestLog.getFileName());
        if (opt.acceptMissingTables()) {
            if (logMissing) {
                log.error("log {} named by the manifest is missing; going on without it as asked (acceptMissingTables): "
                        + "the writes it held are lost", oldestLog);
            }
            return;
        }
        List<String> missing = new ArrayList<>();
        for (long n : m.tables()) {
            Path p = FileNames.table(dir, n);
            if (!present.contains(p.getFileName()) && !present.contains(FileNames.corrupt(p).getFileName())) missing.add(p.getFileName().toString());
        }
        if (logMissing) {
            throw new MissingFilesException(dir + ": log " + oldestLog.getFileName() + " named by the manifest is missing"
                    + (missing.isEmpty() ? "" : ", and " + (missing.size() == 1 ? "table " : "tables ") + String.join(", ", missing))
                    + (present.contains(FileNames.corrupt(oldestLog).getFileName()) ? " (a " + FileNames.corrupt(oldestLog).getFileName() + " is there, which is not replayed)" : "")
                    + "; nothing was changed. It may hold acknowledged writes that are in no table yet: put it back, or "
                    + "open with acceptMissingTables to go on without it (its writes are lost)", true);
        }
        if (missing.isEmpty()) return;
        boolean one = missing.size() == 1;
        String it = one ? "it" : "them";
        throw new MissingFilesException(dir + ": " + (one ? "table " : "tables ") + String.join(", ", missing)
                + " named by the manifest " + (one ? "is" : "are") + " missing; nothing was changed. Put " + it
                + " back, or open with acceptMissingTables to go on without " + it + " (" + (one ? "its" : "their")
                + " entries are lost)", true);
    }

    /**
     * Copies the intact data blocks of a damaged table, already set aside as {@code aside}, into a
     * new table ({@link TableSalvage}) and opens it; null when no block is intact. {@code damage}
     * is what the open found, or null when an interrupted open found it before.
     */
    private Table salvage(Path aside, CorruptionException damage) throws IOException {
        long n = versions.newFileNumber();
        Path target = FileNames.table(dir, n);
        TableSalvage.Outcome o = TableSalvage.salvage(files, aside, target, opt);
        String what = damage == null ? "damaged table " + aside.getFileName() : damage.getMessage();
        versions.counters.errors.record(what + "; salvaged " + o.entries() + " entries at open");
        if (o.entries() == 0) {
            log.error("{}; no intact data block, its entries are lost; the damaged file is kept as {}", what, aside.getFileName());
            return null;
        }
        log.error("{}; salvaged {} entries into {} ({}); the damaged file is kept as {}", what, o.entries(),
                target.getFileName(), o.describe(), aside.getFileName());
        return Table.open(files, target, n, versions.counters.errors);
    }
}
