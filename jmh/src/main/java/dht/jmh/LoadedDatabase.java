package dht.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A database of {@code keys} entries (key {@link Keys#loaded}, 100-byte values), loaded once and
 * compacted, kept under {@code dht.jmh.dir} (default /tmp/dht-jmh) so that later trials reuse it.
 */
final class LoadedDatabase {
    private LoadedDatabase() {}

    static KvEngine open(String engine, long keys) throws IOException {
        Path root = Path.of(System.getProperty("dht.jmh.dir", "/tmp/dht-jmh"));
        String family = engine.startsWith("rocksdb") ? "rocksdb" : engine; // same files, other read settings
        Path dir = root.resolve(family + "-" + keys);
        Path marker = root.resolve(family + "-" + keys + ".loaded");
        if (!Files.exists(marker)) {
            if (Files.exists(dir)) {
                try (var s = Files.walk(dir)) {
                    for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
                }
            }
            Files.createDirectories(dir);
            long t0 = System.nanoTime();
            try (KvEngine kv = KvEngine.open(engine, dir)) {
                byte[] value = new byte[Keys.VALUE_SIZE];
                for (long i = 0; i < keys; i++) {
                    Keys.write(value, 0, i);
                    kv.put(Keys.loaded(i), value.clone());
                    if (i % 1_000_000 == 0 && i > 0) {
                        double s = (System.nanoTime() - t0) / 1e9;
                        System.out.printf("# loading %s: %d of %d keys, %.0f keys/s, ETA %.0f s%n", engine, i, keys,
                                i / s, (keys - i) / (i / s));
                    }
                }
                kv.compactAll();
            }
            System.out.printf("# loaded and compacted %s with %d keys in %.1f s%n", engine, keys,
                    (System.nanoTime() - t0) / 1e9);
            Files.createFile(marker);
        }
        return KvEngine.open(engine, dir);
    }
}
