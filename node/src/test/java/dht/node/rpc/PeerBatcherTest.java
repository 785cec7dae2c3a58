package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.node.rpc.ReplicaBatch.Op;
import dht.node.rpc.ReplicaBatch.Result;
import dht.storage.Entry;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What one event loop sends one peer in one pass goes out as one exchange; a lone operation as itself. */
class PeerBatcherTest {
    private final EventLoop loop = new DefaultEventLoop();
    private final List<Op> singles = new CopyOnWriteArrayList<>();
    private final List<List<Op>> batches = new CopyOnWriteArrayList<>();
    private volatile RuntimeException batchFailure;
    /** Keys the fake replica answers "ask alone" for in a batch. */
    private final List<String> tooLargeForABatch = new CopyOnWriteArrayList<>();

    /** The membership version each batch, then each single, went out with. */
    private final List<Long> batchVersions = new CopyOnWriteArrayList<>();
    private final List<Long> singleVersions = new CopyOnWriteArrayList<>();

    private final PeerBatcher batcher = new PeerBatcher(loop, (op, version) -> {
        singles.add(op);
        singleVersions.add(version);
        return CompletableFuture.completedFuture(echo(op));
    }, (ops, version) -> {
        batches.add(ops);
        batchVersions.add(version);
        if (batchFailure != null) return CompletableFuture.failedFuture(batchFailure);
        List<Result> out = new ArrayList<>();
        for (Op op : ops) {
            boolean alone = tooLargeForABatch.contains(new String(op.key(), StandardCharsets.UTF_8));
            out.add(alone ? Result.ASK_ALONE_RESULT : echo(op));
        }
        return CompletableFuture.completedFuture(out);
    });

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** A fake replica's answer that names the operation, so each caller can check it got its own. */
    private static Result echo(Op op) {
        return new Result(ReplicaBatch.FOUND, op.timestamp(), op.key(), null);
    }

    private static Op write(int i, int valueBytes) {
        return Op.write(Entry.value(("key" + i).getBytes(StandardCharsets.UTF_8), new byte[valueBytes], i));
    }

    /** Submits the ops from one pass of the loop and waits for all results. */
    private List<Result> submitInOnePass(List<Op> ops) throws Exception {
        return submitInOnePass(ops, ops.stream().map(op -> 1L).toList());
    }

    /** As above, each op placed by the membership version at its index in {@code versions}. */
    private List<Result> submitInOnePass(List<Op> ops, List<Long> versions) throws Exception {
        List<CompletableFuture<Result>> futures = new ArrayList<>();
        loop.submit(() -> {
            for (int i = 0; i < ops.size(); i++) futures.add(batcher.submit(ops.get(i), versions.get(i)));
        }).get(5, TimeUnit.SECONDS);
        List<Result> out = new ArrayList<>();
        for (CompletableFuture<Result> f : futures) out.add(f.get(5, TimeUnit.SECONDS));
        return out;
    }

    @Test
    void operationsOfOnePassGoOutAsOneBatchAndEachGetsItsOwnResult() throws Exception {
        List<Op> ops = List.of(write(1, 10), Op.read("k2".getBytes(StandardCharsets.UTF_8)), write(3, 10));
        List<Result> results = submitInOnePass(ops);
        assertThat(batches).hasSize(1);
        assertThat(batches.get(0)).containsExactlyElementsOf(ops);
        assertThat(singles).isEmpty();
        for (int i = 0; i < ops.size(); i++) assertThat(results.get(i).value()).isEqualTo(ops.get(i).key());
    }

    @Test
    void operationsPlacedByAnotherMembershipVersionGoInABatchOfTheirOwn() throws Exception {
        List<Op> ops = List.of(write(1, 10), write(2, 10), write(3, 10), write(4, 10), write(5, 10));
        List<Result> results = submitInOnePass(ops, List.of(7L, 7L, 6L, 7L, 7L));
        assertThat(batches).containsExactly(ops.subList(0, 2), ops.subList(3, 5));
        assertThat(batchVersions).containsExactly(7L, 7L);
        assertThat(singles).containsExactly(ops.get(2)); // alone in its batch: a single request
        assertThat(singleVersions).containsExactly(6L);
        for (int i = 0; i < ops.size(); i++) assertThat(results.get(i).value()).isEqualTo(ops.get(i).key());
    }

    @Test
    void aLoneOperationGoesOutAsASingleRequest() throws Exception {
        submitInOnePass(List.of(write(1, 10)));
        submitInOnePass(List.of(write(2, 10)));
        assertThat(singles).hasSize(2);
        assertThat(batches).isEmpty();
    }

    @Test
    void callersOffTheLoopsSendAtOnceOnTheirOwn() throws Exception {
        assertThat(batcher.submit(write(1, 10), 1).get(5, TimeUnit.SECONDS).timestamp()).isEqualTo(1);
        assertThat(singles).hasSize(1);
    }

    @Test
    void aFullBatchGoesOutAndTheRestOfThePassStartsAnother() throws Exception {
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < PeerBatcher.MAX_BATCH_OPS + 5; i++) ops.add(write(i, 1));
        List<Result> results = submitInOnePass(ops);
        assertThat(batches).extracting(List::size).containsExactly(PeerBatcher.MAX_BATCH_OPS, 5);
        assertThat(results).extracting(Result::timestamp).containsExactlyElementsOf(ops.stream().map(Op::timestamp).toList());

        batches.clear();
        int big = PeerBatcher.MAX_BATCH_BYTES / 3;
        submitInOnePass(List.of(write(1, big), write(2, big), write(3, big), write(4, big)));
        assertThat(batches).extracting(List::size).containsExactly(2, 2);
    }

    @Test
    void aFailedExchangeFailsEveryOperationItCarried() throws Exception {
        batchFailure = new IllegalStateException("peer down");
        List<CompletableFuture<Result>> futures = new ArrayList<>();
        loop.submit(() -> {
            futures.add(batcher.submit(write(1, 10), 1));
            futures.add(batcher.submit(write(2, 10), 1));
        }).get(5, TimeUnit.SECONDS);
        for (CompletableFuture<Result> f : futures) {
            assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasRootCauseMessage("peer down");
        }
    }

    @Test
    void aReadAnsweredAskAloneIsSentAgainOnItsOwn() throws Exception {
        tooLargeForABatch.add("big");
        Op big = Op.read("big".getBytes(StandardCharsets.UTF_8));
        List<Op> ops = List.of(Op.read("small".getBytes(StandardCharsets.UTF_8)), big);
        List<Result> results = submitInOnePass(ops);
        assertThat(batches).hasSize(1);
        assertThat(singles).containsExactly(big);
        assertThat(results.get(0).value()).isEqualTo("small".getBytes(StandardCharsets.UTF_8));
        assertThat(results.get(1).status()).isEqualTo(ReplicaBatch.FOUND);
        assertThat(results.get(1).value()).isEqualTo("big".getBytes(StandardCharsets.UTF_8));
    }
}
