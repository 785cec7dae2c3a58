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
 * Checks a data directory against its checksums without opening the store: the MANIFEST, then
 * every data block of every table it names (the footer, index, stats and bloom filter are checked
 * when the table is opened). What a read or a compaction would find only when it reaches a
 * damaged block, this finds now, for the whole directory.
 *
 * <p>It takes no lock and writes nothing, so it may run beside the node that has the directory
 * open: a table is immutable once the MANIFEST names it, and one that a compaction deletes during
 * the check is either read whole through its mapping or, gone before it is opened, no longer
 * named by the MANIFEST and reported as replaced, not missing. Write-ahead logs are not checked:
 * their last record may be torn by a crash, which the next start handles (docs/storage-format.md).
 */
public final class StoreCheck {
    /** One table: {@code problem} is null when every checksum held. */
    public record TableResult(Path file, long bytes, String problem, List<String> notes) {
        public boolean intact() {
            return problem == null;
        }
    }

    /**
     * @param tables   each table the MANIFEST named, in its order
     * @param setAside tables an earlier start found damaged and kept beside the data as {@code .corrupt}
     */
    public record Report(List<TableResult> tables, List<Path> setAside) {
        public long damaged() {
            return tables.stream().filter(t -> !t.intact()).count();
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

    /** Reads the MANIFEST of {@code dir}; fails (a {@link CorruptionException} for a damaged one) when it cannot. */
    public static StoreCheck of(Path dir) throws IOException {
        return of(dir, NioStorageFiles.INSTANCE);
    }

    static StoreCheck of(Path dir, StorageFiles files) throws IOException {
        if (!Files.exists(dir.resolve(Manifest.NAME))) {
            throw new NoSuchFileException(dir.resolve(Manifest.NAME).toString(), null, "no MANIFEST: not a data directory");
        }
        return new StoreCheck(dir, files, Manifest.read(files, dir));
    }

    /** The tables the MANIFEST names. */
    public int tableCount() {
        return manifest.tables().size();
    }

    /** What {@link #run} will read: the sizes of the tables the MANIFEST names that exist now. */
    public long totalBytes() {
        long total = 0;
        for (long n : manifest.tables()) {
            try {
                total += Files.size(FileNames.table(dir, n));
            } catch (IOException gone) {
                // reported by run()
            }
        }
        return total;
    }

    /** Checks every table; {@code checked} hears the bytes of each data block as it is verified. */
    public Report run(LongConsumer checked) throws IOException {
        List<TableResult> results = new ArrayList<>();
        for (long n : manifest.tables()) results.add(check(n, checked));
        List<Path> setAside;
        try (Stream<Path> list = Files.list(dir)) {
            setAside = list.filter(p -> p.getFileName().toString().endsWith(FileNames.TABLE + ".corrupt")).sorted().toList();
        }
        return new Report(results, setAside);
    }

    /** A table not there: damage if the MANIFEST still names it, else a running node's compaction replaced it meanwhile. */
    private TableResult missing(Path path, long number) throws IOException {
        if (Manifest.read(files, dir).tables().contains(number)) {
            return new TableResult(path, 0, "missing: the MANIFEST names it but the file is not there", List.of());
        }
        return new TableResult(path, 0, null, List.of("replaced by a compaction during the check"));
    }

    private static long sizeOf(Path path) {
        try {
            return Files.size(path);
        } catch (IOException gone) {
            return 0;
        }
    }

    private TableResult check(long number, LongConsumer checked) throws IOException {
        Path path = FileNames.table(dir, number);
        Table t;
        try {
            t = Table.open(files, path, number);
        } catch (CorruptionException e) {
            return new TableResult(path, sizeOf(path), e.getMessage() + " (the next start salvages its intact blocks)", List.of());
        } catch (NoSuchFileException e) {
            return missing(path, number);
        }
        t.retain();
        try {
            List<String> notes = t.hasBloomFilter() ? List.of()
                    : List.of("bloom filter damaged: reads look inside for every key (compaction rewrites it)");
            try {
                t.checkDataBlocks(() -> false, checked);
            } catch (CorruptionException e) {
                return new TableResult(path, t.sizeBytes, e.getMessage(), notes);
            }
            return new TableResult(path, t.sizeBytes, null, notes);
        } finally {
            t.release();
        }
    }
}
