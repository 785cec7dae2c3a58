package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import dht.storage.ForwardingStore;
import dht.storage.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link JoinCleanup} on its own: a cleanup owed is reported ({@link JoinCleanup#owed}) until its
 * purge is over, including one resumed at a start that falls during a later change, which runs
 * once that change is over.
 */
class JoinCleanupTest {
    private static final String A = "http://a";
    private static final Membership V1 = Membership.initial(List.of(A, "http://b", "http://c"), 2);
    private static final Membership JOINED = V1.withJoining("http://d").settled(); // version 3: owes a cleanup
    private static final Membership LEAVING = JOINED.withLeaving("http://c");   // version 4: a change under way

    @TempDir
    Path dir;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicInteger purges = new AtomicInteger();
    private final Store store = new ForwardingStore(new MemoryStore()) {
        @Override
        public long purge(Predicate<Entry> drop) {
            purges.incrementAndGet();
            return 0;
        }
    };

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void aCleanupMarkedBeforeARestartDuringALaterChangeRunsOnceThatChangeIsOver() throws Exception {
        Files.writeString(dir.resolve("cleanup-pending"), String.valueOf(JOINED.version()));
        MembershipState state = new MembershipState(A, LEAVING, null, url -> { });
        JoinCleanup cleanup = new JoinCleanup(A, state, store, dir, timer, new RebalanceCounts(), () -> false, (gainers, version) -> { });

        cleanup.resume(LEAVING);
        assertThat(cleanup.owed()).as("owed from the start, though a change is under way").isTrue();
        Thread.sleep(JoinCleanup.DELAY_MILLIS + 1_000);
        assertThat(purges).as("nothing purged while the change is under way").hasValue(0);
        assertThat(cleanup.owed()).isTrue();

        state.apply(LEAVING.settled()); // the leave ends: it owes no cleanup of its own
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3 * JoinCleanup.DELAY_MILLIS / 1000);
        while (purges.get() == 0 && System.nanoTime() < deadline) Thread.sleep(100);
        assertThat(purges).as("purged once the change was over").hasValue(1);
        assertThat(cleanup.owed()).isFalse();
        assertThat(dir.resolve("cleanup-pending")).doesNotExist();
    }
}
