package dht.storage;

import java.io.IOException;
import java.nio.file.Path;

/** Another store (in this process or another) has the directory open. Thrown at once, never waits. */
public final class DirectoryLockedException extends IOException {
    private final Path directory;

    public DirectoryLockedException(Path directory) {
        super("data directory " + directory.toAbsolutePath() + " is in use by another store (lock file "
                + directory.resolve("LOCK").toAbsolutePath() + " is held)");
        this.directory = directory;
    }

    public Path directory() { return directory; }
}
