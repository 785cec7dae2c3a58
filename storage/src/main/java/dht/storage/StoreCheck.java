package dht.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/**
 * Checks a data directory against its checksums without opening the store: the MANIFEST, the log
 * it names as the oldest still needed (present, not replayed), and every table it names: footer,
 * stats, index and bloom filter as an open checks them, then every data block: its CRC32C, which
 * covers the block as stored, so a compressed block is checked before it is decompressed; then a
 * compressed one is decompressed too, as a read would. What a read or a compaction would find only
 * when it reaches a damaged block, this finds now, for the whole directory.
 *
 * <p>It takes no lock and writes nothing, so it may run beside the node that has the directory
 * open: a table is immutable once the MANIFEST names it, and one that a compaction deletes during
 * the check is either read whole through its mapping or, gone before it is opened, no longer
 * named by the MANIFEST and reported as replaced, not missing; the same holds for a log a switch
 * retires. Logs are not read: their last record may be torn by a crash, which the next start
 * handles as it replays them (docs/storage-format.md).
 */
public final class StoreCheck {
    /**
     * One table: {@code problems} (damage) empty when every checksum held; {@code replaced} when a
     * running node's compaction deleted it before it was checked; {@code unreadable} (not damage,
     * but not checked either: a newer format, no permission) null when it could be read.
     */
    public record TableResult(Path file, long bytes, List<String> problems, boolean replaced, String unreadable) {
        public boolean intact() {
            return problems.isEmpty();
        }
    }

    /**
     * @param problems what is wrong with the directory beyond its tables (the oldest log missing)
     * @param tables   each table the MANIFEST named, in its order
     * @param setAside tables an earlier start found damaged, salvaged, and kept beside the data as {@code .corrupt}
     */
    public record Report(List<String> problems, List<TableResult> tables, List<Path> setAside) {
        public long damagedTables() {
            return tables.stream().filter(t -> !t.intact()).count();
        }

        public long replacedTables() {
            return tables.stream().filter(TableResult::replaced).count();
        }

        public long unreadableTables() {
            return tables.stream().filter(t -> t.unreadable() != null).count();
        }

        /** Every file there and every checksum held. */
        public boolean intact() {
            return problems.isEmpty() && damagedTables() == 0 && unreadableTables() == 0;
        }
    }

    private final Path dir;
    private final StorageFiles files;
    private final Manifest manifest;

    private StoreCheck(Path dir, StorageFiles files, Manifest manifest) {
        this.dir = dir;
        this.files = files;
        this.manifest = manifest;
    }

    /**
     * Reads the MANIFEST of {@code dir}: fails with {@link NoSuchFileException} when there is none
     * and with a {@link CorruptionException} when it is damaged.
     */
    public static StoreCheck of(Path dir) throws IOException {
        return of(dir, NioStorageFiles.INSTANCE);
    }

    static StoreCheck of(Path dir, StorageFiles files) throws IOException {
        Path manifest = dir.resolve(Manifest.NAME);
        if (!Files.exists(manifest)) throw new NoSuchFileException(manifest.toString());
        return new StoreCheck(dir, files, Manifest.read(files, dir));
    }

    /** The tables the MANIFEST names. */
    public int tableCount() {
        return manifest.tables().size();
    }

    /** Sizes of the named tables when first asked, so that progress counts a table replaced meanwhile as done. */
    private final java.util.Map<Long, Long> sizes = new java.util.HashMap<>();

    /** What {@link #run} reads, in bytes: the sizes of the tables the MANIFEST names that are there now. */
    public long totalBytes() {
        long total = 0;
        for (long n : manifest.tables()) total += sizes.computeIfAbsent(n, k -> sizeOf(FileNames.table(dir, k)));
        return total;
    }

    /** Whether {@code dir} holds table files (which only a MANIFEST can name live). */
    public static boolean holdsTables(Path dir) throws IOException {
        return holds(dir, FileNames.TABLE);
    }

    /** Whether {@code dir} holds write-ahead logs (a first start that stopped before its first MANIFEST leaves only these). */
    public static boolean holdsLogs(Path dir) throws IOException {
        return holds(dir, FileNames.LOG);
    }

    private static boolean holds(Path dir, String suffix) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.anyMatch(p -> FileNames.number(p.getFileName().toString(), suffix) >= 0);
        }
    }

    /** Checks every table; {@code checked} hears the bytes read as it goes, {@link #totalBytes} in all. */
    public Report run(LongConsumer checked) throws IOException {
        List<String> problems = new ArrayList<>();
        if (manifest.logNumber() > 0 && !Files.exists(FileNames.log(dir, manifest.logNumber()))
                && Manifest.read(files, dir).logNumber() == manifest.logNumber()) {
            problems.add("log " + FileNames.log(dir, manifest.logNumber()).getFileName() + " named by the MANIFEST is missing:"
                    + " it may hold acknowledged writes that are in no table, and the store refuses to start without it");
        }
        List<TableResult> results = new ArrayList<>();
        for (long n : manifest.tables()) results.add(check(n, checked));
        List<Path> setAside;
        try (Stream<Path> list = Files.list(dir)) {
            // one whose table the MANIFEST still names is not set aside yet: missing() reports it
            String suffix = FileNames.TABLE + FileNames.CORRUPT;
            setAside = list.filter(p -> p.getFileName().toString().endsWith(suffix))
                    .filter(p -> !manifest.tables().contains(FileNames.number(p.getFileName().toString(), suffix)))
                    .sorted().toList();
        }
        return new Report(problems, results, setAside);
    }

    /** What the next start's salvage of {@code path} would keep, read the same way and written nowhere. */
    private String salvageOf(Path path) {
        try {
            TableSalvage.Outcome o = TableSalvage.salvage(files, path, null, StoreOptions.defaults());
            return "it would keep " + o.entries() + " entries, " + o.describe();
        } catch (IOException | RuntimeException e) {
            return "what it would keep is unknown: " + e.getMessage();
        }
    }

    private TableResult check(long number, LongConsumer checked) throws IOException {
        Path path = FileNames.table(dir, number);
        long size = sizes.computeIfAbsent(number, k -> sizeOf(path));
        Table t;
        try {
            t = Table.open(files, path, number);
        } catch (CorruptionException e) {
            checked.accept(size);
            return new TableResult(path, size, List.of(e.getMessage() + " (the next start salvages its intact blocks: " + salvageOf(path) + ")"), false, null);
        } catch (NoSuchFileException e) {
            checked.accept(size);
            return missing(path, number);
        } catch (IOException | RuntimeException | InternalError e) {
            // A newer format version, no permission, a read error: not known to be damage, not checked either.
            checked.accept(size);
            return new TableResult(path, size, List.of(), false, e.getMessage() != null ? e.getMessage() : e.toString());
        }
        t.retain();
        try {
            List<String> problems = new ArrayList<>();
            if (!t.hasBloomFilter()) {
                problems.add("bloom filter damaged (checksum or size): no entry lost, but every read looks inside this table");
            }
            if (t.statsDamaged) {
                problems.add("stats region checksum mismatch: no entry lost, but no read skips this table by timestamp");
            }
            int damaged = 0;
            String first = null;
            long read = 0;
            for (int i = 0; i < t.blockCount(); i++) {
                try {
                    long n = t.verifyBlock(i);
                    read += n;
                    checked.accept(n);
                } catch (CorruptionException e) {
                    damaged++;
                    if (first == null) first = e.getMessage();
                } catch (RuntimeException | InternalError e) {
                    // InternalError: the mapped page could not be read (a bad sector); out of
                    // bounds: an index that passed its checksum yet points outside the file
                    damaged++;
                    if (first == null) first = path + ": block " + i + " could not be read: " + e;
                }
            }
            if (damaged > 0) {
                problems.add(damaged + " of " + t.blockCount() + " data blocks damaged, their entries never served; the first: " + first);
            }
            checked.accept(t.sizeBytes - read); // the regions checked at open, and the damaged blocks
            return new TableResult(path, t.sizeBytes, List.copyOf(problems), false, null);
        } finally {
            t.release();
        }
    }

    /**
     * A table not there. A running node's compaction may have replaced it since the MANIFEST was
     * read; or a start that was salvaging it stopped half-way, leaving only its {@code .corrupt}
     * copy (the next start salvages it); else it is lost.
     */
    private TableResult missing(Path path, long number) throws IOException {
        if (!Manifest.read(files, dir).tables().contains(number)) return new TableResult(path, 0, List.of(), true, null);
        Path setAside = FileNames.corrupt(path);
        String problem = Files.exists(setAside)
                ? "only its damaged copy " + setAside.getFileName() + " is here (a start stopped while salvaging it): the next start salvages it"
                : "missing: the MANIFEST names it but the file is not there, and the store refuses to start without it";
        return new TableResult(path, 0, List.of(problem), false, null);
    }

    private static long sizeOf(Path path) {
        try {
            return Files.size(path);
        } catch (IOException gone) {
            return 0;
        }
    }
}
