package dht.storage;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Turns off the logs of the readers a fuzz test drives: they report every damaged input, which
 * is nearly every input, and writing those lines would take most of the fuzzing time.
 */
final class FuzzLogs {
    private static final Map<String, Level> saved = new HashMap<>();

    private FuzzLogs() {}

    static synchronized void off(Class<?>... classes) {
        for (Class<?> c : classes) {
            Logger l = (Logger) LoggerFactory.getLogger(c);
            saved.putIfAbsent(l.getName(), l.getLevel());
            l.setLevel(Level.OFF);
        }
    }

    static synchronized void restore() {
        saved.forEach((name, level) -> ((Logger) LoggerFactory.getLogger(name)).setLevel(level));
        saved.clear();
    }
}
