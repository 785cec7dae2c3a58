package dht.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dht.testkit.FuzzDeadline;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzzes the MANIFEST reader: any bytes, written as a MANIFEST, either read back or fail with a
 * {@link CorruptionException} or another {@link IOException}; never an unchecked exception, an
 * {@link OutOfMemoryError} or an endless loop. What it reads, written again, is the same bytes
 * (a manifest has one encoding). The seed corpus ({@code ManifestFuzzTestInputs}) holds
 * manifests written by {@link Manifest#write} ({@link FuzzSeeds}). See docs/fuzzing.md.
 */
class ManifestFuzzTest {
    @TempDir
    static Path dir;

    @FuzzTest(maxDuration = "10s")
    void readsOrFailsAsCorruption(byte[] data) throws Exception {
        Path read = dir.resolve("read");
        Path written = dir.resolve("written");
        Files.createDirectories(read);
        Files.createDirectories(written);
        Files.write(read.resolve(Manifest.NAME), data);
        FuzzDeadline.run(() -> {
            Manifest m;
            try {
                m = Manifest.read(NioStorageFiles.INSTANCE, read);
            } catch (IOException e) {
                return; // refused: the documented outcome
            }
            m.write(NioStorageFiles.INSTANCE, written);
            assertThat(Files.readAllBytes(written.resolve(Manifest.NAME))).isEqualTo(data);
        });
    }
}
