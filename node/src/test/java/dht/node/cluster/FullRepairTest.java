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

/** Which replicas an operator's repair ({@code repair=all}) writes, and what it answers. */
class FullRepairTest {
    static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
    final Map<String, RecordingReplica> replicas = new LinkedHashMap<>();
    final List<String> targets = List.of("a", "b", "c", "d");
    final List<CompletableFuture<Entry>> reads = new ArrayList<>();
    final FullRepair repair;

    FullRepairTest() {
        for (String t : targets) {
            replicas.put(t, new RecordingReplica(t));
            reads.add(new CompletableFuture<>());
        }
        repair = new FullRepair(Map.copyOf(replicas));
    }

    static Entry value(String v, long ts) {
        return Entry.value(KEY, v.getBytes(StandardCharsets.UTF_8), ts);
    }

    @Test
    void aValueReachesEveryReplicaThatLacksItAfterTheLastHolderToo() {
        Entry newest = value("v2", 20);
        CompletableFuture<RepairAnswer> answer = repair.repair(targets, reads, 4);
        reads.get(0).complete(newest);
        reads.get(1).complete(value("v1", 10));
        reads.get(2).complete(null);
        assertThat(answer).as("not before every read is in").isNotDone();
        assertThat(replicas.get("b").written).isEmpty();
        reads.get(3).complete(value("v1", 10));

        assertThat(answer).isCompleted();
        RepairAnswer a = answer.join();
        assertThat(a.answer().kind()).isEqualTo(Answer.Kind.FOUND);
        assertThat(a.answer().value()).isEqualTo("v2".getBytes(StandardCharsets.UTF_8));
        assertThat(a.header()).isEqualTo("sent=3 failed=0 unreachable=0");
        assertThat(replicas.get("a").written).isEmpty();
        for (String t : List.of("b", "c", "d")) assertThat(replicas.get(t).written).as(t).containsExactly(newest);
        assertThat(repair.keys()).isEqualTo(1);
        assertThat(repair.sent()).isEqualTo(3);
    }

    /**
     * A value written with fewer copies than the repair's {@code from} reaches the others recording
     * that many: recording its own, those copies would sit in no anti-entropy tree, and a later
     * overwrite with as few copies would leave them stale for good.
     */
    @Test
    void aValueBroughtUpToMoreCopiesRecordsThem() {
        Entry newest = value("v2", 20).withCopies(1);
        CompletableFuture<RepairAnswer> answer = repair.repair(targets, reads, 4);
        reads.get(0).complete(newest);
        for (int i = 1; i < 4; i++) reads.get(i).complete(i == 1 ? value("v1", 10).withCopies(4) : null);

        assertThat(answer.join().header()).isEqualTo("sent=3 failed=0 unreachable=0");
        assertThat(replicas.get("a").written).isEmpty();
        for (String t : List.of("b", "c", "d")) {
            assertThat(replicas.get(t).written).as(t).containsExactly(newest.withCopies(4));
        }
    }

    @Test
    void aTombstoneReachesEveryOlderVersionButNoReplicaWithoutTheKey() {
        Entry tombstone = Entry.tombstone(KEY, 30);
        CompletableFuture<RepairAnswer> answer = repair.repair(targets, reads, 4);
        reads.get(0).complete(value("v1", 10));
        reads.get(1).complete(tombstone);
        reads.get(2).complete(null);
        reads.get(3).complete(Entry.tombstone(KEY, 5));

        RepairAnswer a = answer.join();
        assertThat(a.answer().kind()).isEqualTo(Answer.Kind.NOT_FOUND);
        assertThat(a.header()).isEqualTo("sent=2 failed=0 unreachable=0");
        assertThat(replicas.get("a").written).containsExactly(tombstone);
        assertThat(replicas.get("c").written).as("nothing to bring back").isEmpty();
        assertThat(replicas.get("d").written).containsExactly(tombstone);
    }

    @Test
    void aFailedReadIsUnreachableAndLeftAloneAndFewerThanAckAnswersIs504WithTheOthersRepaired() {
        Entry v = value("v", 20);
        CompletableFuture<RepairAnswer> answer = repair.repair(targets, reads, 4);
        reads.get(0).complete(null);
        reads.get(1).completeExceptionally(new IllegalStateException("timed out"));
        reads.get(2).complete(v);
        reads.get(3).complete(null);

        RepairAnswer a = answer.join();
        assertThat(a.answer().kind()).isEqualTo(Answer.Kind.NOT_ENOUGH_REPLICAS);
        assertThat(a.header()).isEqualTo("sent=2 failed=0 unreachable=1");
        assertThat(replicas.get("a").written).containsExactly(v);
        assertThat(replicas.get("b").written).isEmpty();
        assertThat(replicas.get("d").written).containsExactly(v);

        List<CompletableFuture<Entry>> again = new ArrayList<>();
        for (int i = 0; i < 4; i++) again.add(i == 1 ? CompletableFuture.failedFuture(new IllegalStateException("down")) : CompletableFuture.completedFuture(v));
        RepairAnswer withAckThree = repair.repair(targets, again, 3).join();
        assertThat(withAckThree.answer().kind()).isEqualTo(Answer.Kind.FOUND);
        assertThat(withAckThree.header()).isEqualTo("sent=0 failed=0 unreachable=1");
    }

    @Test
    void failedWritesAreCountedAndTheAnswerWaitsForThem() {
        replicas.get("b").failing = true;
        CompletableFuture<Void> slowWrite = new CompletableFuture<>();
        Map<String, Replica> withSlowC = new LinkedHashMap<>(replicas);
        withSlowC.put("c", new Replica() {
            @Override
            public String url() {
                return "c";
            }

            @Override
            public CompletableFuture<Entry> read(byte[] key) {
                throw new UnsupportedOperationException();
            }

            @Override
            public CompletableFuture<Void> write(Entry entry) {
                return slowWrite;
            }
        });
        FullRepair slow = new FullRepair(withSlowC);
        CompletableFuture<RepairAnswer> answer = slow.repair(targets, reads, 4);
        Entry v = value("v", 20);
        for (int i = 0; i < 4; i++) reads.get(i).complete(i == 0 ? v : null);
        assertThat(answer).as("waits for the repair writes").isNotDone();
        slowWrite.complete(null);
        assertThat(answer.join().header()).isEqualTo("sent=3 failed=1 unreachable=0");
        assertThat(slow.failed()).isEqualTo(1);
    }

    @Test
    void agreementOrAKeyNobodyHasSendsNothing() {
        List<CompletableFuture<Entry>> none = new ArrayList<>();
        List<CompletableFuture<Entry>> same = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            none.add(CompletableFuture.completedFuture(null));
            same.add(CompletableFuture.completedFuture(value("same", 7)));
        }
        assertThat(repair.repair(targets, none, 4).join().answer().kind()).isEqualTo(Answer.Kind.NOT_FOUND);
        assertThat(repair.repair(targets, same, 4).join().header()).isEqualTo("sent=0 failed=0 unreachable=0");
        assertThat(repair.sent()).isZero();
    }
}
