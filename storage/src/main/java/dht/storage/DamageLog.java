package dht.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table's damage, logged once per place: every read that needs a damaged block fails again, and
 * a line each time buried the log (a scan over 30 keys of one block wrote 30 identical errors).
 * Invariant: the first report of an offset is an error line, the later ones debug lines; a fault of
 * the mapping ({@link #fault}) is one error line for the whole file. Each error line is one
 * {@link StorageErrors} error of the store.
 */
final class DamageLog {
    private static final Logger log = LoggerFactory.getLogger(Table.class);
    private final Set<Long> reported = ConcurrentHashMap.newKeySet();
    private final Path path;
    private final StorageFiles files;
    private final long mappedBytes;
    private final StorageErrors errors;
    /** Why no read of the table's mapping may be tried again (set once, by the first fault), or null. */
    private volatile String unreadable;

    /** For the table {@code path}, mapped with {@code mappedBytes} bytes, its damage counted in {@code errors}. */
    DamageLog(Path path, StorageFiles files, long mappedBytes, StorageErrors errors) {
        this.path = path;
        this.files = files;
        this.mappedBytes = mappedBytes;
        this.errors = errors;
    }

    /** Logs {@code e}, found at {@code off}, and returns it for the caller to throw. */
    CorruptionException report(CorruptionException e, long off) {
        if (reported.add(off)) {
            log.error("{} (logged once; every read that needs it fails)", e.getMessage());
            errors.record(e.getMessage());
        } else {
            log.debug("{}", e.getMessage());
        }
        return e;
    }

    /**
     * A read of the mapping faulted: Java raises an {@link InternalError} where the kernel sends
     * SIGBUS, for a page past the end of a file truncated under its mapping, or one the disk could
     * not read. Nothing read from it can be proven, so from now on every read fails at once
     * ({@link #checkReadable}) rather than fault again, until a restart salvages the intact blocks
     * (the open finds the file short). Returns the damage for the caller to throw.
     */
    CorruptionException fault(InternalError e) {
        String why = unreadable;
        if (why == null) {
            markUnreadable(describe(e));
            why = unreadable;
        }
        return new CorruptionException(path, why);
    }

    /**
     * Marks the table unreadable if its file is now shorter than when it was mapped, before a read
     * faults: a cut within the last page reads as zeros rather than faulting, and a key whose bloom
     * bits fall there would read as absent. Returns whether it marked it now. A file that cannot be
     * looked at is left alone: replaced by a compaction meanwhile, or deleted (the mapping still
     * reads the unlinked file).
     */
    boolean checkSize() {
        if (unreadable != null) return false;
        String cut;
        try {
            cut = truncation();
        } catch (IOException gone) {
            return false;
        }
        return cut != null && markUnreadable(cut);
    }

    /** How the file is shorter than when mapped, or null if it is not. */
    private String truncation() throws IOException {
        long now = files.size(path);
        return now >= mappedBytes ? null
                : "file truncated to " + now + " bytes under the running store (" + mappedBytes + " when opened)";
    }

    /** Sets why the mapping is not to be read again, logged and counted once; false if it was set already. */
    private synchronized boolean markUnreadable(String why) {
        if (unreadable != null) return false;
        unreadable = why;
        log.error("table {} unreadable: {}; every read that needs it fails until a restart salvages its"
                + " intact blocks (logged once)", path, why);
        errors.record("table " + path + " unreadable: " + why);
        return true;
    }

    /** Throws the damage {@link #fault} found, if it found any: the mapping is not to be read again. */
    void checkReadable() throws CorruptionException {
        String why = unreadable;
        if (why != null) throw new CorruptionException(path, why);
    }

    /** What is wrong, as far as the file on disk says. */
    private String describe(InternalError e) {
        try {
            String cut = truncation();
            if (cut != null) return cut;
        } catch (IOException gone) {
            return "a read of its mapping faulted and the file cannot be looked at (" + gone + ")";
        }
        return "a read of its mapping faulted (" + e.getMessage() + "): the disk could not read a page?";
    }
}
