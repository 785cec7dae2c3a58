package dht.storage;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Once a second, the size of every live table's file against its size when mapped
 * ({@link Table#checkSize}): a file truncated under the running store is reported damaged before
 * a read finds it, whether or not that read would fault. A stat per table a second.
 */
final class TableSizeWatch {
    private static final Logger log = LoggerFactory.getLogger(TableSizeWatch.class);
    static final long PERIOD_MILLIS = 1000;

    private TableSizeWatch() {
    }

    /** Starts the watch on {@code on}, which runs it until it is shut down. */
    static void start(ScheduledExecutorService on, VersionSet versions) {
        on.scheduleWithFixedDelay(() -> {
            try {
                for (Table t : versions.current().tables) t.checkSize();
            } catch (RuntimeException e) { // else the schedule would end here, silently
                log.warn("checking the tables' sizes failed: {}", e.toString());
            }
        }, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }
}
