package dht.storage;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * One logger's lines, captured during each test of a class that registers it
 * ({@code @RegisterExtension final LogCapture lines = new LogCapture(LsmStore.class);}): for tests
 * that check what an operator reads, and how often.
 */
final class LogCapture implements BeforeEachCallback, AfterEachCallback {
    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    LogCapture(Class<?> source) {
        this.logger = (Logger) LoggerFactory.getLogger(source);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        appender.list.clear();
        appender.start();
        logger.addAppender(appender);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.detachAppender(appender);
    }

    /** The lines so far, oldest first; a test may clear it. */
    List<ILoggingEvent> events() {
        return appender.list;
    }

    /** How many lines at {@code level} contain {@code words}. */
    long count(Level level, String words) {
        return appender.list.stream().filter(e -> e.getLevel() == level && e.getFormattedMessage().contains(words)).count();
    }
}
