package dht.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Writes the seed corpus of the fuzz tests: files made by the real writers, for the fuzzer to
 * mutate. Each goes where Jazzer looks for a fuzz test's inputs,
 * {@code <resources>/dht/storage/<TestClass>Inputs/<testMethod>/}. Run from the repository root
 * (docs/fuzzing.md):
 * {@code mvn -B -q -pl storage test-compile exec:java -Dexec.classpathScope=test -Dexec.mainClass=dht.storage.FuzzSeeds -Dexec.args=storage/src/test/resources}
 */
public final class FuzzSeeds {
    private FuzzSeeds() {}

    public static void main(String[] args) throws IOException {
        Path resources = Path.of(args.length > 0 ? args[0] : "src/test/resources");
        Path scratch = Files.createTempDirectory("fuzz-seeds");
        wal(resources.resolve("dht/storage/WalReaderFuzzTestInputs/replayReturnsOnlyWholeRecords"), scratch);
        table(resources.resolve("dht/storage/TableFuzzTestInputs/readsOrFailsAsCorruption"), scratch);
        manifest(resources.resolve("dht/storage/ManifestFuzzTestInputs/readsOrFailsAsCorruption"), scratch);
        Files.delete(scratch);
    }

    private static byte[] b(String s) { return s.getBytes(java.nio.charset.StandardCharsets.UTF_8); }

    /** A put of key "k" whose body (21 fixed bytes, the key, the value) is {@code body} bytes long. */
    private static Entry withBody(int body, long ts) {
        byte[] v = new byte[body - LogRecord.BODY_FIXED - 1];
        Arrays.fill(v, (byte) 'v');
        return Entry.value(b("k"), v, ts);
    }

    private static void wal(Path out, Path scratch) throws IOException {
        Files.createDirectories(out);
        Files.write(out.resolve("empty"), new byte[0]);
        Path log = scratch.resolve("000001.log");
        WalFiles.write(log, List.of(Entry.value(b("key"), b("value"), 1), Entry.tombstone(b("gone"), 2),
                Entry.value(b("e"), new byte[0], 3), Entry.value(new byte[] {0, (byte) 0xFF}, b("x"), -4)));
        Files.copy(log, out.resolve("small-records"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        // The first record ends 3 bytes before the block's end: zeros, and the next record starts the next block.
        WalFiles.write(log, List.of(withBody(LogFormat.BLOCK - LogFormat.HEADER - 3, 1), Entry.value(b("next"), b("x"), 2)));
        Files.copy(log, out.resolve("block-tail-padding"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        // The second record does not fit the first block's rest: a FIRST fragment there, a LAST in the next.
        WalFiles.write(log, List.of(withBody(LogFormat.BLOCK - 200, 1), Entry.value(b("split"), new byte[300], 2)));
        Files.copy(log, out.resolve("record-across-blocks"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.delete(log);
    }

    private static void table(Path out, Path scratch) throws IOException {
        Files.createDirectories(out);
        Path t = scratch.resolve("000001.sst");
        StoreOptions o = StoreOptions.defaults().withBlockSize(256);
        TableWriter.write(NioStorageFiles.INSTANCE, t, List.of(Entry.value(b("key"), b("value"), 1)).iterator(), 1, o);
        Files.copy(t, out.resolve("one-entry"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        List<Entry> es = new java.util.ArrayList<>();
        for (int i = 0; i < 24; i++) {
            byte[] k = b(String.format("key%03d", i));
            es.add(i % 5 == 3 ? Entry.tombstone(k, i) : Entry.value(k, i % 7 == 0 ? new byte[0] : b("value" + i), -i));
        }
        // blocks of 256 bytes: several, so the index and the block search have work
        TableWriter.write(NioStorageFiles.INSTANCE, t, es.iterator(), es.size(), o);
        Files.copy(t, out.resolve("several-blocks"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.delete(t);
    }

    private static void manifest(Path out, Path scratch) throws IOException {
        Files.createDirectories(out);
        new Manifest(2, 1, List.of()).write(NioStorageFiles.INSTANCE, scratch);
        Files.copy(scratch.resolve(Manifest.NAME), out.resolve("no-tables"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        new Manifest(42, 40, List.of(7L, 12L, 39L)).write(NioStorageFiles.INSTANCE, scratch);
        Files.copy(scratch.resolve(Manifest.NAME), out.resolve("three-tables"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.delete(scratch.resolve(Manifest.NAME));
    }
}
