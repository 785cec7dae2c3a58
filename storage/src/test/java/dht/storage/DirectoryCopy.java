package dht.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;

/**
 * A copy of a store's directory, taken while the store is open: what a crash at that instant
 * leaves on disk (writes acknowledged but not yet in a table are only in the log), for tests that
 * reopen it.
 */
final class DirectoryCopy {
    private DirectoryCopy() {
    }

    /** Copies {@code from} and everything under it to {@code to}, created if missing. */
    static void of(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }
}
