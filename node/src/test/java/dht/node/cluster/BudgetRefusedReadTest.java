package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.rpc.PeerUnavailableException;
import dht.storage.Entry;
import dht.storage.ReadBudget;
import dht.storage.ReadBudgetExceededException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A GET whose local read the node's answer budget refused: 503 (retry later) when that refusal is
 * why the quorum failed, 504 when a replica also failed otherwise, and an answer when the other
 * replicas reach ack without it.
 */
class BudgetRefusedReadTest {
    static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    /** A replica that answers every read with what it was given. */
    record Fixed(String url, CompletableFuture<Entry> answer) implements Replica {
        @Override
        public CompletableFuture<Entry> read(byte[] key) {
            return answer;
        }

        @Override
        public CompletableFuture<Entry> read(byte[] key, ReadBudget budget) {
            return answer;
        }

        @Override
        public CompletableFuture<Void> write(Entry entry) {
            throw new UnsupportedOperationException();
        }
    }

    static CompletableFuture<Entry> refused() {
        return CompletableFuture.failedFuture(new ReadBudgetExceededException(1 << 20));
    }

    static CompletableFuture<Entry> down() {
        return CompletableFuture.failedFuture(new PeerUnavailableException("peer down", null));
    }

    static CompletableFuture<Entry> value() {
        return CompletableFuture.completedFuture(Entry.value(KEY, "v".getBytes(StandardCharsets.UTF_8), 1));
    }

    static Answer get(Quorum quorum, List<CompletableFuture<Entry>> answers) {
        Map<String, Replica> replicas = new HashMap<>();
        List<String> urls = List.of("http://a:1", "http://b:1", "http://c:1").subList(0, answers.size());
        for (int i = 0; i < answers.size(); i++) replicas.put(urls.get(i), new Fixed(urls.get(i), answers.get(i)));
        ReplicatingCoordinator c = new ReplicatingCoordinator(new Placement(urls), replicas, new HybridLogicalClock(),
                new ReadRepair(replicas, java.time.Duration.ofSeconds(1), null), new FullRepair(replicas), null);
        return c.get(KEY, quorum, ReadBudget.UNLIMITED).join();
    }

    @Test
    void aSingleNodeWhoseBudgetRefusedTheValueAnswersOverloaded() {
        assertThat(get(new Quorum(1, 1), List.of(refused()))).isEqualTo(Answer.OVERLOADED);
    }

    @Test
    void aQuorumThatFailedAlsoForAReplicaDownIsNotEnoughReplicas() {
        assertThat(get(new Quorum(2, 3), List.of(refused(), down(), value()))).isEqualTo(Answer.NOT_ENOUGH_REPLICAS);
    }

    @Test
    void otherReplicasReachingAckAnswerWithoutTheRefusedRead() {
        assertThat(get(new Quorum(2, 3), List.of(refused(), value(), value())).kind()).isEqualTo(Answer.Kind.FOUND);
    }
}
