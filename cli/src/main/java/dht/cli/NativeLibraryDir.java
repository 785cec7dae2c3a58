package dht.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a served node's Netty unpacks its native epoll library: a directory of the process's own,
 * {@code <java.io.tmpdir>/dht-native-<pid>-<random>}, whose file is kept while the process runs.
 *
 * <p>Why: Netty unpacks the library to a temporary file and, by default, deletes the file once it
 * is loaded. A profiler started later (the admin endpoint's flame graphs) reads a library's
 * symbols from its file, so with the file gone every frame of Netty's native code showed as the
 * library's name alone. Kept, they show as {@code netty_epoll_wait}, {@code netty_unix_socket_...}.
 *
 * <p>Invariants: nothing is changed when the user chose for themselves ({@code -Dio.netty.native.workdir}
 * or {@code -Dio.netty.native.deleteLibAfterLoading} given); the directories left by processes
 * that are no longer running (killed, so they could not clean up) are removed at the next start,
 * so at most one is left per process that died since; the directory is made new, with a random
 * name and only its owner allowed in ({@link Files#createTempDirectory}), so that nobody else can
 * have put a library there first; one that cannot be removed (another user's) is left alone; a
 * failure here costs only the symbol names, never the start.
 */
final class NativeLibraryDir {
    private static final Logger log = LoggerFactory.getLogger(NativeLibraryDir.class);
    static final String PREFIX = "dht-native-";
    static final String WORKDIR = "io.netty.native.workdir";
    static final String DELETE_AFTER_LOADING = "io.netty.native.deleteLibAfterLoading";

    private NativeLibraryDir() {
    }

    /**
     * Sets Netty's properties to unpack into this process's directory and keep the file; call before
     * anything loads Netty's native transport. Returns the directory, or null if nothing was set.
     */
    static Path use() {
        if (System.getProperty(WORKDIR) != null || System.getProperty(DELETE_AFTER_LOADING) != null) return null;
        try {
            Path dir = prepare(Path.of(System.getProperty("java.io.tmpdir")), ProcessHandle.current().pid());
            System.setProperty(WORKDIR, dir.toString());
            System.setProperty(DELETE_AFTER_LOADING, "false");
            return dir;
        } catch (IOException | UncheckedIOException e) {
            log.warn("Native library directory not prepared ({}): flame graphs will not name Netty's native frames", e.toString());
            return null;
        }
    }

    /** Removes the directories under {@code tmp} of processes no longer running, then makes a new one for {@code pid}. */
    static Path prepare(Path tmp, long pid) throws IOException {
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tmp, PREFIX + "*")) {
            for (Path d : dirs) {
                Long owner = owner(d);
                if (owner == null || owner == pid || ProcessHandle.of(owner).isPresent()) continue;
                try {
                    deleteTree(d);
                } catch (IOException | UncheckedIOException e) {
                    log.debug("Left {}: {}", d, e.toString()); // not ours to remove, most likely
                }
            }
        }
        return Files.createTempDirectory(tmp, PREFIX + pid + "-");
    }

    /** Removes this process's directory (at a graceful stop); the loaded library stays mapped. */
    static void remove(Path dir) {
        if (dir == null) return;
        try {
            deleteTree(dir);
        } catch (IOException | UncheckedIOException e) {
            log.warn("Native library directory {} not removed: {}", dir, e.toString());
        }
    }

    /** The pid in {@code dht-native-<pid>-<random>}, or null for a name that is not ours. */
    private static Long owner(Path dir) {
        String rest = dir.getFileName().toString().substring(PREFIX.length());
        int dash = rest.indexOf('-');
        try {
            return dash < 0 ? null : Long.parseLong(rest.substring(0, dash));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
