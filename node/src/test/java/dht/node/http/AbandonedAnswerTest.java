package dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dht.node.cluster.Answer;
import dht.node.cluster.Coordinator;
import dht.node.cluster.Quorum;
import dht.storage.ReadBudget;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * An Error (a full heap) on the way to an answer must not keep what the request holds. Thrown on
 * from a future's callback or an event-loop task, it was swallowed, the request never completed,
 * and its permit and reserved bytes were held for good: a node whose clients pipelined GETs of a
 * 1 MiB value without reading the answers once still held 78 permits and one value's bytes after
 * those clients were gone. The request is given up instead, and its connection closed.
 */
class AbandonedAnswerTest {
    private final Admission admission = new Admission(100, 10, 1 << 20);
    private final HoldingConnections connections = new HoldingConnections(admission);

    /** A stream that cannot start for want of heap. */
    private static final class HeaplessStream implements ResponseStream {
        @Override
        public void start(ChannelHandlerContext ctx, boolean keepAlive, boolean http10, Done done) {
            throw new OutOfMemoryError("injected: Java heap space");
        }

        @Override
        public void writabilityChanged() {
        }

        @Override
        public void cancel() {
        }

        @Override
        public void discard() {
        }
    }

    @Test
    void anAnswerThatCannotStartGivesBackWhatItHoldsAndClosesTheConnection() {
        EmbeddedChannel ch = connections.connect();
        ch.writeInbound(UnreadAnswerBudgetTest.gets(2));
        assertThat(connections.held).hasSize(2);

        assertThatCode(() -> connections.held.get(0).stream(new HeaplessStream())).doesNotThrowAnyException();
        ch.runPendingTasks();
        assertThat(ch.isOpen()).as("the connection, an answer short, is closed").isFalse();
        connections.held.get(1).respond(UnreadAnswerBudgetTest.ok('b', 10));
        assertThat(connections.workReleased).as("both requests' work given back").hasValue(2);
        ch.finishAndReleaseAll();
    }

    /**
     * A scan whose worker cannot start (no heap or threads for it) gives its scan permit back, and
     * its connection closes: before, the permit stayed taken, as only the worker gave it back.
     */
    @Test
    void aScanWhoseWorkerCannotStartGivesItsPermitBack() {
        EmbeddedChannel ch = connections.connect();
        ch.writeInbound(UnreadAnswerBudgetTest.gets(1));
        assertThat(admission.tryAcquireScan()).isTrue();
        ScanStream scan = new ScanStream(() -> {
            throw new AssertionError("never opened");
        }, EntryFormat.PUBLIC, task -> {
            throw new OutOfMemoryError("injected: unable to create a thread");
        }, admission::releaseScan, "test scan");

        assertThatCode(() -> connections.held.getFirst().stream(scan)).doesNotThrowAnyException();
        ch.runPendingTasks();
        assertThat(admission.scans()).as("scan permits held").isZero();
        assertThat(admission.inFlight()).as("permits held").isZero();
        assertThat(ch.isOpen()).as("the connection closed").isFalse();
        ch.finishAndReleaseAll();
    }

    /** Reserves a 1 MiB value in the read budget, as a store read does, then runs out of heap. */
    private static final class HeaplessCoordinator implements Coordinator {
        @Override
        public CompletableFuture<Answer> get(byte[] key, Quorum quorum, ReadBudget budget) {
            assertThat(budget.tryReserve(1 << 20)).isTrue();
            throw new OutOfMemoryError("injected: Java heap space");
        }

        @Override
        public CompletableFuture<Answer> get(byte[] key, Quorum quorum) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Answer> put(byte[] key, byte[] value, Quorum quorum) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Answer> delete(byte[] key, Quorum quorum) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aGetThatRunsOutOfHeapGivesBackItsPermitAndTheValueItReserved() {
        Admission large = new Admission(100, 10, 8 << 20);
        Router router = new Router(Map.of("/v0/entity", new EntityRoute(new HeaplessCoordinator(), 1, large)));
        EmbeddedChannel ch = new EmbeddedChannel(new HttpServerCodec(),
                new RequestAssembler(8192, 1000, large, Duration.ofSeconds(30)), new ResponseSequencer(router, large));

        ch.writeInbound(UnreadAnswerBudgetTest.gets(1));
        ch.runPendingTasks();
        assertThat(large.inFlight()).as("permits held").isZero();
        assertThat(large.answerBytesHeld()).as("answer bytes held").isZero();
        assertThat(ch.isOpen()).as("the connection closed").isFalse();
        ch.finishAndReleaseAll();
    }
}
