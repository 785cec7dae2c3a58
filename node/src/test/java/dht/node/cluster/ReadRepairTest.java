package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ReadRepairTest {
    static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
    final Map<String, RecordingReplica> replicas = new LinkedHashMap<>();
    final List<String> targets = List.of("a", "b", "c", "d");
    final List<CompletableFuture<Entry>> reads = new ArrayList<>();
    final ReadRepair repair;

    ReadRepairTest() {
        for (String t : targets) {
            replicas.put(t, new RecordingReplica(t));
            reads.add(new CompletableFuture<>());
        }
        repair = new ReadRepair(Map.copyOf(replicas));
    }

    static Entry value(String v, long ts) {
        return Entry.value(KEY, v.getBytes(StandardCharsets.UTF_8), ts);
    }

    @Test
    void replicasBeforeTheLastHolderOfTheNewestVersionGetItOnceEveryAnswerIsIn() {
        Entry newest = value("v2", 20);
        repair.afterRead(targets, reads);
        reads.get(0).complete(value("v1", 10));
        reads.get(1).complete(value("v0", 5));
        reads.get(2).complete(newest);
        assertThat(replicas.get("a").written).as("nothing before the last answer").isEmpty();
        reads.get(3).completeExceptionally(new IllegalStateException("timed out"));

        assertThat(replicas.get("a").written).containsExactly(newest);
        assertThat(replicas.get("b").written).containsExactly(newest);
        assertThat(replicas.get("c").written).isEmpty();
        assertThat(replicas.get("d").written).as("a failed replica: unknown state, left alone").isEmpty();
        assertThat(repair.sent()).isEqualTo(2);
        assertThat(repair.failed()).isZero();
    }

    /** A repair hands on the newest version's expiry: an expiring value never becomes permanent on a stale replica. */
    @Test
    void aRepairCarriesTheNewestVersionsExpiry() {
        Entry expiring = Entry.value(KEY, "v".getBytes(StandardCharsets.UTF_8), 20, 1_700_000_000_000L);
        repair.afterRead(targets, reads);
        reads.get(0).complete(value("old", 10));
        for (int i = 1; i < 4; i++) reads.get(i).complete(expiring);

        assertThat(replicas.get("a").written).singleElement().satisfies(e -> {
            assertThat(e.timestamp()).isEqualTo(20);
            assertThat(e.expiry()).isEqualTo(1_700_000_000_000L);
        });
    }

    @Test
    void aReplicaWithoutTheKeyBeforeAHolderGetsACopyAsTheWriteTargetedIt() {
        Entry v = value("v", 20);
        repair.afterRead(targets, reads);
        reads.get(0).complete(null);
        reads.get(1).complete(v);
        reads.get(2).complete(null);
        reads.get(3).complete(null);

        assertThat(replicas.get("a").written).containsExactly(v);
        assertThat(replicas.get("c").written).as("after the last holder: the write may have had from=2").isEmpty();
        assertThat(replicas.get("d").written).isEmpty();
    }

    @Test
    void replicasAfterTheLastHolderGetNothingAsTheWriteMayHaveHadASmallerFrom() {
        // PUT v1 with 4/4, then PUT v2 with 1/1: a 4/4 read must not spread v2 beyond the first replica
        repair.afterRead(targets, reads);
        reads.get(0).complete(value("v2", 20));
        reads.get(1).complete(value("v1", 10));
        reads.get(2).complete(value("v1", 10));
        reads.get(3).complete(null);
        assertThat(repair.sent()).isZero();
        for (RecordingReplica r : replicas.values()) assertThat(r.written).isEmpty();
    }

    @Test
    void aTombstoneIsSpreadLikeAValueAndAnOlderOneIsOverwritten() {
        Entry tombstone = Entry.tombstone(KEY, 30);
        repair.afterRead(targets, reads);
        reads.get(0).complete(value("v", 20));
        reads.get(1).complete(tombstone);
        reads.get(2).complete(Entry.tombstone(KEY, 5));
        reads.get(3).complete(tombstone);

        assertThat(replicas.get("a").written).containsExactly(tombstone);
        assertThat(replicas.get("c").written).containsExactly(tombstone);
        assertThat(replicas.get("b").written).isEmpty();
        assertThat(replicas.get("d").written).isEmpty();
    }

    @Test
    void aTombstoneReachesAStaleValueAfterTheLastHolderSoThePurgeCannotBringTheKeyBack() {
        Entry tombstone = Entry.tombstone(KEY, 30);
        repair.afterRead(targets, reads);
        reads.get(0).complete(tombstone);
        reads.get(1).complete(tombstone);
        reads.get(2).complete(value("v1", 10)); // missed the delete
        reads.get(3).complete(null);

        assertThat(replicas.get("c").written).containsExactly(tombstone);
        assertThat(replicas.get("d").written).as("nothing to bring back").isEmpty();
    }

    @Test
    void agreementOrAKeyNobodyHasSendsNothing() {
        repair.afterRead(targets, reads);
        for (CompletableFuture<Entry> r : reads) r.complete(null);
        List<CompletableFuture<Entry>> again = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) again.add(CompletableFuture.completedFuture(value("same", 7)));
        repair.afterRead(targets, again);
        assertThat(repair.sent()).isZero();
        for (RecordingReplica r : replicas.values()) assertThat(r.written).isEmpty();
    }

    @Test
    void aFailedRepairIsCounted() {
        replicas.get("b").failing = true;
        repair.afterRead(targets, reads);
        reads.get(0).complete(value("v2", 20));
        reads.get(1).complete(value("v1", 10));
        reads.get(2).complete(value("v2", 20));
        reads.get(3).complete(value("v2", 20));
        assertThat(repair.sent()).isEqualTo(1);
        assertThat(repair.failed()).isEqualTo(1);
    }
}
