package dht.storage;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table's damage, logged once per place: every read that needs a damaged block fails again, and
 * a line each time buried the log (a scan over 30 keys of one block wrote 30 identical errors).
 * Invariant: the first report of an offset is an error line, the later ones debug lines.
 */
final class DamageLog {
    private static final Logger log = LoggerFactory.getLogger(Table.class);
    private final Set<Long> reported = ConcurrentHashMap.newKeySet();

    /** Logs {@code e}, found at {@code off}, and returns it for the caller to throw. */
    CorruptionException report(CorruptionException e, long off) {
        if (reported.add(off)) {
            log.error("{} (logged once; every read that needs it fails)", e.getMessage());
        } else {
            log.debug("{}", e.getMessage());
        }
        return e;
    }
}
