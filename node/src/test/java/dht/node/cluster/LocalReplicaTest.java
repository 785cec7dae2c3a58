package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.ReadBudget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * This node's store as a replica: a version stamped more than the max clock offset ahead of the
 * clock fails the read, as a peer's answer carrying one does. Before, a tester's node whose clock
 * had been an hour ahead, once set right, answered its own future copies in the reads it
 * coordinated: a value older than an acknowledged ack=3 write, a deleted key as present.
 */
class LocalReplicaTest {
    private static final long NOW = 1_800_000_000_000_000L;
    private final HybridLogicalClock clock = new HybridLogicalClock(() -> NOW, Duration.ofMillis(500));
    private final MemoryStore store = new MemoryStore();
    private final StorageDispatcher direct = new StorageDispatcher(Runnable::run, null);
    private final LocalReplica replica = new LocalReplica("http://a:1", store, direct, direct, clock);

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aVersionFromBeyondTheOffsetFailsTheReadAndGivesBackItsReservation() throws Exception {
        store.put(b("future"), b("value"), NOW + 3_600_000_000L);
        AtomicLong reserved = new AtomicLong();
        ReadBudget counting = new ReadBudget() {
            @Override public boolean tryReserve(int bytes) { reserved.addAndGet(bytes); return true; }
            @Override public void release(int bytes) { reserved.addAndGet(-bytes); }
        };
        var read = replica.read(b("future"), counting);
        assertThat(read).failsWithin(Duration.ofSeconds(1)).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(TimestampRefusedException.class);
        assertThat(reserved).hasValue(0);
        assertThat(clock.refused()).isEqualTo(1);
    }

    @Test
    void aFutureTombstoneFailsTooAndVersionsWithinTheOffsetAreRead() throws Exception {
        store.delete(b("gone"), NOW + 3_600_000_000L);
        assertThat(replica.read(b("gone"))).failsWithin(Duration.ofSeconds(1));
        store.put(b("near"), b("v"), NOW + 400_000);
        assertThat(replica.read(b("near")).get().timestamp()).isEqualTo(NOW + 400_000);
        assertThat(replica.read(b("missing")).get()).isNull();
    }
}
