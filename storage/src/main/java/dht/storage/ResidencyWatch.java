package dht.storage;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each table's {@link Residency} current for {@link LsmStore#readsWithoutWaiting}: the caller
 * (an event loop) reads the last answers only, and the checks that are due run on a background
 * executor, one pass at a time per store.
 *
 * <p>Invariants: at most one pass is queued or running; a table never checked counts as not
 * resident, so a new table sends reads to the storage threads until its first check; a pass that
 * fails is logged and the next call queues another.
 */
final class ResidencyWatch {
    private static final Logger log = LoggerFactory.getLogger(LsmStore.class);

    private final VersionSet versions;
    private final Executor background;
    private final AtomicBoolean queued = new AtomicBoolean();

    ResidencyWatch(VersionSet versions, Executor background) {
        this.versions = versions;
        this.background = background;
    }

    /** Whether every table of {@code v} was resident at its last check; queues the checks that are due. */
    boolean allResident(Version v) {
        boolean all = true;
        boolean due = false;
        for (Table t : v.tables) {
            all &= t.residency.resident();
            due |= t.residency.due();
        }
        if (due && queued.compareAndSet(false, true)) {
            try {
                background.execute(this::checkDue);
            } catch (RuntimeException e) { // a closing store's executor: no more checks
                queued.set(false);
            }
        }
        return all;
    }

    private void checkDue() {
        try {
            Version v = versions.acquire();
            if (v == null) return;
            try {
                for (Table t : v.tables) if (t.residency.due()) t.residency.check();
            } finally {
                v.release();
            }
        } catch (RuntimeException | Error e) {
            log.warn("checking which tables are in the page cache failed: {}", e.toString());
        } finally {
            queued.set(false);
        }
    }
}
