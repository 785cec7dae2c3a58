package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Which replicas get which version; with {@code ack = 1} the read answers at its first answer, so
 * these are the repairs made once every call is in. The blocking ones (a read waiting for its
 * repairs) follow, with their own replicas.
 */
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
        repair = new ReadRepair(Map.copyOf(replicas), Duration.ofSeconds(5), null);
    }

    static Entry value(String v, long ts) {
        return Entry.value(KEY, v.getBytes(StandardCharsets.UTF_8), ts);
    }

    @Test
    void replicasBeforeTheLastHolderOfTheNewestVersionGetItOnceEveryAnswerIsIn() {
        Entry newest = value("v2", 20);
        repair.read(targets, reads, 1);
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
        repair.read(targets, reads, 4);
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
        repair.read(targets, reads, 1);
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
        repair.read(targets, reads, 1);
        reads.get(0).complete(value("v2", 20));
        reads.get(1).complete(value("v1", 10));
        reads.get(2).complete(value("v1", 10));
        reads.get(3).complete(null);
        assertThat(repair.sent()).isZero();
        for (RecordingReplica r : replicas.values()) assertThat(r.written).isEmpty();
    }

    @Test
    void aVersionThatRecordsItsCopiesReachesEveryReplicaItsWriteTargeted() {
        Entry newest = value("v2", 20).withCopies(3);
        repair.read(targets, reads, 1);
        reads.get(0).complete(newest);
        reads.get(1).complete(value("v1", 10));
        reads.get(2).complete(null);
        reads.get(3).complete(value("v1", 10));

        assertThat(replicas.get("b").written).containsExactly(newest);
        assertThat(replicas.get("c").written).containsExactly(newest);
        assertThat(replicas.get("d").written).as("past the write's from: 3").isEmpty();
    }

    @Test
    void aTombstoneIsSpreadLikeAValueAndAnOlderOneIsOverwritten() {
        Entry tombstone = Entry.tombstone(KEY, 30);
        repair.read(targets, reads, 1);
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
        repair.read(targets, reads, 1);
        reads.get(0).complete(tombstone);
        reads.get(1).complete(tombstone);
        reads.get(2).complete(value("v1", 10)); // missed the delete
        reads.get(3).complete(null);

        assertThat(replicas.get("c").written).containsExactly(tombstone);
        assertThat(replicas.get("d").written).as("nothing to bring back").isEmpty();
    }

    @Test
    void agreementOrAKeyNobodyHasSendsNothing() {
        repair.read(targets, reads, 1);
        for (CompletableFuture<Entry> r : reads) r.complete(null);
        List<CompletableFuture<Entry>> again = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) again.add(CompletableFuture.completedFuture(value("same", 7)));
        repair.read(targets, again, 1);
        assertThat(repair.sent()).isZero();
        for (RecordingReplica r : replicas.values()) assertThat(r.written).isEmpty();
    }

    @Test
    void aFailedRepairIsCounted() {
        replicas.get("b").failing = true;
        repair.read(targets, reads, 1);
        reads.get(0).complete(value("v2", 20));
        reads.get(1).complete(value("v1", 10));
        reads.get(2).complete(value("v2", 20));
        reads.get(3).complete(value("v2", 20));
        assertThat(repair.sent()).isEqualTo(1);
        assertThat(repair.failed()).isEqualTo(1);
    }

    /** A replica whose writes complete when the test says so. */
    static final class HeldReplica implements Replica {
        final String url;
        final List<Entry> written = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<CompletableFuture<Void>> writes = new java.util.concurrent.CopyOnWriteArrayList<>();

        HeldReplica(String url) {
            this.url = url;
        }

        @Override
        public String url() {
            return url;
        }

        @Override
        public CompletableFuture<Entry> read(byte[] key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> write(Entry entry) {
            CompletableFuture<Void> w = new CompletableFuture<>();
            w.thenRun(() -> written.add(entry));
            writes.add(w);
            return w;
        }
    }

    final Map<String, HeldReplica> held = new LinkedHashMap<>();
    final List<String> three = List.of("a", "b", "c");

    ReadRepair blocking(Duration timeout) {
        for (String t : three) held.put(t, new HeldReplica(t));
        return new ReadRepair(Map.copyOf(held), timeout, null);
    }

    @Test
    void aReadThatHeardAStaleReplicaAnswersOnceAQuorumHoldsTheNewest() throws Exception {
        ReadRepair r = blocking(Duration.ofSeconds(30));
        List<CompletableFuture<Entry>> calls = List.of(new CompletableFuture<>(), new CompletableFuture<>(), new CompletableFuture<>());
        CompletableFuture<Entry> answer = r.read(three, calls, 2);
        Entry newest = value("v2", 20);
        calls.get(0).complete(value("v1", 10)); // missed the write
        calls.get(1).complete(newest);
        assertThat(held.get("a").writes).as("repair sent at the quorum").hasSize(1);
        assertThat(answer).as("not before the repair is written").isNotDone();
        held.get("a").writes.get(0).complete(null);
        assertThat(answer).isCompletedWithValue(newest);
        assertThat(held.get("a").written).containsExactly(newest);
        calls.get(2).complete(newest);
        assertThat(held.get("a").writes).as("sent once").hasSize(1);
        assertThat(r.sent()).isEqualTo(1);
        assertThat(r.timedOut()).isZero();
    }

    @Test
    void agreeingAnswersAreAnsweredAtOnceAndALateStaleReplicaIsRepairedAfterwards() {
        ReadRepair r = blocking(Duration.ofSeconds(30));
        List<CompletableFuture<Entry>> calls = List.of(new CompletableFuture<>(), new CompletableFuture<>(), new CompletableFuture<>());
        CompletableFuture<Entry> answer = r.read(three, calls, 2);
        Entry newest = value("v2", 20);
        calls.get(1).complete(newest);
        calls.get(2).complete(newest);
        assertThat(answer).isCompletedWithValue(newest);
        calls.get(0).complete(null);
        assertThat(held.get("a").writes).hasSize(1);
    }

    @Test
    void aStaleReplicaTheCopyRuleHoldsBackIsRepairedOnceALaterHolderAllowsIt() {
        ReadRepair r = blocking(Duration.ofSeconds(30));
        List<CompletableFuture<Entry>> calls = List.of(new CompletableFuture<>(), new CompletableFuture<>(), new CompletableFuture<>());
        CompletableFuture<Entry> answer = r.read(three, calls, 2);
        Entry newest = value("v2", 20);
        calls.get(0).complete(newest);
        calls.get(1).complete(value("v1", 10)); // after the only holder heard: the write may have had from=1
        assertThat(held.get("b").writes).isEmpty();
        assertThat(answer).isNotDone();
        calls.get(2).complete(value("v1", 10)); // no later holder: v2 may have been written with from=1
        assertThat(answer).as("no quorum of copies of v2 can be made, and v1 has them").isCompletedWithValue(value("v1", 10));
        assertThat(r.sent()).isZero();
        assertThat(r.timedOut()).isZero();
    }

    /**
     * v2 on the first replica alone (a write that failed after reaching only its coordinator, or a
     * PUT 1/1): answering it to a 2/3 read would let a later 2/3 read of b and c go back to v1. The
     * contract does not oblige a 2/3 read to see a 1-copy write (1 + 2 is not over 3), so it answers
     * the version a quorum holds; the same for a key only that replica has.
     */
    @Test
    void aVersionNoQuorumCanHoldIsNotAnsweredWhenTheContractAllowsAnOlderOne() {
        ReadRepair r = blocking(Duration.ofSeconds(30));
        List<CompletableFuture<Entry>> calls = List.of(CompletableFuture.completedFuture(value("v2", 20)),
                CompletableFuture.completedFuture(value("v1", 10)), CompletableFuture.completedFuture(value("v0", 5)));
        assertThat(r.read(three, calls, 2)).as("a holds v2, b v1: two hold v1 or newer").isCompletedWithValue(value("v1", 10));

        calls = List.of(CompletableFuture.completedFuture(value("v2", 20)), CompletableFuture.completedFuture(null),
                CompletableFuture.completedFuture(null));
        assertThat(r.read(three, calls, 2)).as("absent").isCompletedWithValue(null);
        assertThat(r.sent()).isZero();
    }

    @Test
    void aVersionTheContractObligesTheReadToSeeIsAnsweredAlthoughNoQuorumHoldsIt() {
        ReadRepair r = blocking(Duration.ofSeconds(30));
        Entry newest = value("v2", 20);
        // PUT 1/1 then GET 3/3: 1 + 3 > 3, the read must see v2
        List<CompletableFuture<Entry>> calls = List.of(CompletableFuture.completedFuture(newest),
                CompletableFuture.completedFuture(value("v1", 10)), CompletableFuture.completedFuture(value("v1", 10)));
        assertThat(r.read(three, calls, 3)).isCompletedWithValue(newest);
        // c did not answer: it may hold v2 too, and v2 may be a write acknowledged 2/3
        calls = List.of(CompletableFuture.completedFuture(newest), CompletableFuture.completedFuture(value("v1", 10)),
                CompletableFuture.failedFuture(new IllegalStateException("down")));
        assertThat(r.read(three, calls, 2)).isCompletedWithValue(newest);
        // a GET 2/2 in a cluster of three: the third replica, not asked, may hold v2
        Map<String, HeldReplica> four = new LinkedHashMap<>(held);
        four.put("d", new HeldReplica("d"));
        ReadRepair wider = new ReadRepair(Map.copyOf(four), Duration.ofSeconds(30), null);
        calls = List.of(CompletableFuture.completedFuture(newest), CompletableFuture.completedFuture(value("v1", 10)),
                CompletableFuture.completedFuture(value("v1", 10)));
        assertThat(wider.read(three, calls, 2)).as("three asked of four").isCompletedWithValue(newest);
    }

    /**
     * The partition runs' case: v2 on the first replica only (its coordinator was cut off), the
     * second holds v1, the third is down. v2 records that its write asked for three copies, so the
     * second is brought up to it and the read answers v2 once two hold it: a later 2/3 read of the
     * second and third replicas sees v2 too.
     */
    @Test
    void aVersionWhoseWriteTargetedAStaleReplicaIsAnsweredOnceAQuorumHoldsIt() {
        ReadRepair r = blocking(Duration.ofSeconds(30));
        Entry newest = value("v2", 20).withCopies(3);
        List<CompletableFuture<Entry>> calls = List.of(CompletableFuture.completedFuture(newest),
                CompletableFuture.completedFuture(value("v1", 10)), CompletableFuture.failedFuture(new IllegalStateException("down")));
        CompletableFuture<Entry> answer = r.read(three, calls, 2);
        assertThat(held.get("b").writes).as("the second replica is sent v2").hasSize(1);
        assertThat(answer).as("not before it holds it").isNotDone();
        held.get("b").writes.get(0).complete(null);
        assertThat(answer).isCompletedWithValue(newest);
        assertThat(held.get("b").written).containsExactly(newest);
    }

    @Test
    void aRepairWriteThatTakesTooLongStillAnswersAndIsCounted() throws Exception {
        ReadRepair r = blocking(Duration.ofMillis(100));
        List<CompletableFuture<Entry>> calls = List.of(new CompletableFuture<>(), new CompletableFuture<>(), new CompletableFuture<>());
        CompletableFuture<Entry> answer = r.read(three, calls, 2);
        Entry newest = value("v2", 20);
        calls.get(0).complete(null);
        calls.get(1).complete(newest);
        assertThat(answer).isNotDone();
        assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(newest);
        assertThat(r.timedOut()).isEqualTo(1);
        assertThat(held.get("a").written).isEmpty();
    }

    @Test
    void aFailedRepairWriteAnswersAtOnce() {
        ReadRepair r = blocking(Duration.ofSeconds(30));
        List<CompletableFuture<Entry>> calls = List.of(new CompletableFuture<>(), new CompletableFuture<>(), new CompletableFuture<>());
        CompletableFuture<Entry> answer = r.read(three, calls, 2);
        Entry tombstone = Entry.tombstone(KEY, 20);
        calls.get(0).complete(value("v1", 10));
        calls.get(1).complete(tombstone);
        calls.get(2).completeExceptionally(new IllegalStateException("down"));
        held.get("a").writes.get(0).completeExceptionally(new IllegalStateException("refused"));
        assertThat(answer).isCompletedWithValue(tombstone);
        assertThat(r.failed()).isEqualTo(1);
        assertThat(r.timedOut()).isZero();
    }

    @Test
    void tooFewAnswersFailTheRead() {
        ReadRepair r = blocking(Duration.ofSeconds(30));
        List<CompletableFuture<Entry>> calls = List.of(new CompletableFuture<>(), new CompletableFuture<>(), new CompletableFuture<>());
        CompletableFuture<Entry> answer = r.read(three, calls, 2);
        calls.get(0).completeExceptionally(new IllegalStateException("down"));
        calls.get(1).completeExceptionally(new IllegalStateException("down"));
        assertThatThrownBy(answer::join).hasCauseInstanceOf(QuorumCall.NotEnoughReplicasException.class);
    }
}
