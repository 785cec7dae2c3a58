package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StorageDispatcherTest {
    private final EventLoop loop = new DefaultEventLoop();
    private final AtomicInteger handOvers = new AtomicInteger();
    private final ExecutorService pool = Executors.newFixedThreadPool(4, Thread.ofPlatform().name("storage-", 0).factory());

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        pool.shutdownNow();
    }

    private StorageDispatcher dispatcher(boolean batching) {
        return new StorageDispatcher(task -> {
            handOvers.incrementAndGet();
            pool.execute(task);
        }, batching ? loop : null);
    }

    /** Submits {@code n} calls from one pass of the event loop; each records its index and thread. */
    private List<CompletableFuture<String>> submitFromLoop(StorageDispatcher h, int n, List<Integer> order) throws Exception {
        List<CompletableFuture<String>> results = new ArrayList<>();
        loop.submit(() -> {
            for (int i = 0; i < n; i++) {
                int index = i;
                CompletableFuture<String> r = new CompletableFuture<>();
                results.add(r);
                h.submit(r, () -> {
                    order.add(index);
                    r.complete(Thread.currentThread().getName());
                });
            }
        }).get(5, TimeUnit.SECONDS);
        CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        return results;
    }

    @Test
    void callsOfOnePassOfAnEventLoopAreHandedOverTogetherAndRunInOrderOffTheLoop() throws Exception {
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<String>> results = submitFromLoop(dispatcher(true), 50, order);
        assertThat(handOvers).hasValue(1);
        assertThat(order).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 50).boxed().toList());
        Set<String> threads = ConcurrentHashMap.newKeySet();
        for (CompletableFuture<String> r : results) threads.add(r.join());
        assertThat(threads).hasSize(1).allMatch(t -> t.startsWith("storage-"));
    }

    @Test
    void withoutBatchingEveryCallIsHandedOverAlone() throws Exception {
        submitFromLoop(dispatcher(false), 20, Collections.synchronizedList(new ArrayList<>()));
        assertThat(handOvers).hasValue(20);
    }

    @Test
    void aCallFromOutsideAnEventLoopIsHandedOverAtOnce() throws Exception {
        CompletableFuture<String> r = new CompletableFuture<>();
        dispatcher(true).submit(r, () -> r.complete(Thread.currentThread().getName()));
        assertThat(r.get(5, TimeUnit.SECONDS)).startsWith("storage-");
        assertThat(handOvers).hasValue(1);
    }

    @Test
    void aFailingCallFailsOnlyItsOwnFuture() throws Exception {
        StorageDispatcher h = dispatcher(true);
        CompletableFuture<String> bad = new CompletableFuture<>();
        CompletableFuture<String> good = new CompletableFuture<>();
        loop.submit(() -> {
            h.submit(bad, () -> {
                throw new IOException("disk on fire");
            });
            h.submit(good, () -> good.complete("ok"));
        }).get(5, TimeUnit.SECONDS);
        assertThat(good.get(5, TimeUnit.SECONDS)).isEqualTo("ok");
        assertThatThrownBy(() -> bad.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IOException.class);
        assertThat(handOvers).hasValue(1);
    }

    @Test
    void aRejectedHandOverFailsEveryCallOfTheBatch() throws Exception {
        assertAHandOverThrowingFailsEveryCallOfTheBatch(new RejectedExecutionException("stopped"));
    }

    /** Three calls from one pass, handed over to an executor that throws {@code thrown}: each fails with it. */
    private void assertAHandOverThrowingFailsEveryCallOfTheBatch(Throwable thrown) throws Exception {
        StorageDispatcher h = new StorageDispatcher(task -> {
            if (thrown instanceof Error e) throw e;
            throw (RuntimeException) thrown;
        }, loop);
        List<CompletableFuture<String>> results = new ArrayList<>();
        loop.submit(() -> {
            for (int i = 0; i < 3; i++) {
                CompletableFuture<String> r = new CompletableFuture<>();
                results.add(r);
                h.submit(r, () -> r.complete("ran"));
            }
        }).get(5, TimeUnit.SECONDS);
        for (CompletableFuture<String> r : results) {
            assertThatThrownBy(() -> r.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(thrown.getClass());
        }
    }

    /**
     * A hand-off the executor cannot take for want of heap (a new worker thread, a queue node) fails
     * every call of the batch: left alone, they would wait for good, each holding a request's permit.
     */
    @Test
    void aHandOverThatRunsOutOfHeapFailsEveryCallOfTheBatch() throws Exception {
        assertAHandOverThrowingFailsEveryCallOfTheBatch(new OutOfMemoryError("injected: unable to create a worker"));
    }

    /** A future whose failure cannot be recorded: completing it exceptionally throws, as on a full heap. */
    private static final class Unfailable<T> extends CompletableFuture<T> {
        @Override
        public boolean completeExceptionally(Throwable ex) {
            throw new OutOfMemoryError("injected: no heap to record " + ex);
        }
    }

    /**
     * A call that fails, and whose failure cannot even be recorded, fails alone: the calls after it
     * in its batch still run, reads and writes, on a storage thread that lives on.
     */
    @Test
    void aCallWhoseFailureCannotBeRecordedDoesNotStopTheCallsAfterIt() throws Exception {
        StorageDispatcher h = dispatcher(true);
        CompletableFuture<String> bad = new Unfailable<>();
        CompletableFuture<String> badWrite = new Unfailable<>();
        CompletableFuture<String> read = new CompletableFuture<>();
        CompletableFuture<String> write = new CompletableFuture<>();
        MemoryStore failing = new MemoryStore();
        failing.failing = true;
        MemoryStore store = new MemoryStore();
        loop.submit(() -> {
            h.submit(bad, () -> {
                throw new OutOfMemoryError("injected: Java heap space");
            });
            h.submitWrite(badWrite, failing, dht.storage.Entry.tombstone(new byte[] {1}, 1), () -> badWrite.complete("no"));
            h.submit(read, () -> read.complete("ran"));
            h.submitWrite(write, store, dht.storage.Entry.tombstone(new byte[] {2}, 1), () -> write.complete("written"));
        }).get(5, TimeUnit.SECONDS);
        assertThat(read.get(5, TimeUnit.SECONDS)).isEqualTo("ran");
        assertThat(write.get(5, TimeUnit.SECONDS)).isEqualTo("written");
        assertThat(handOvers).hasValue(1);
    }

    /** Hands over a write of {@code entry}; the future completes with "written" once it is. */
    private static CompletableFuture<Object> write(StorageDispatcher h, MemoryStore store, dht.storage.Entry entry) {
        CompletableFuture<Object> r = new CompletableFuture<>();
        h.submitWrite(r, store, entry, () -> r.complete("written"));
        return r;
    }

    private static dht.storage.Entry value(String key) {
        return dht.storage.Entry.value(key.getBytes(), "v".getBytes(), 1);
    }

    /**
     * Writes in a row reach the store as one call (one group commit); a read between them splits
     * the run and sees the writes made before it, as the calls' order says.
     */
    @Test
    void consecutiveWritesOfOnePassAreOneStoreCall() throws Exception {
        StorageDispatcher h = dispatcher(true);
        MemoryStore store = new MemoryStore();
        List<CompletableFuture<Object>> results = new ArrayList<>();
        loop.submit(() -> {
            for (int i = 0; i < 3; i++) results.add(write(h, store, value("k" + i)));
            CompletableFuture<Object> read = new CompletableFuture<>();
            results.add(read);
            h.submit(read, () -> read.complete(store.get("k2".getBytes()) != null ? "seen" : "missed"));
            results.add(write(h, store, dht.storage.Entry.tombstone("k0".getBytes(), 2)));
        }).get(5, TimeUnit.SECONDS);
        CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        assertThat(results).extracting(CompletableFuture::join).containsExactly("written", "written", "written", "seen", "written");
        assertThat(store.writeCalls).containsExactly(3, 1);
        assertThat(handOvers).hasValue(1);
    }

    /** Handed over or made on the loop (a store that takes writes at once), alike. */
    @Test
    void aFailedWriteFailsEveryWriteOfItsRunAndNothingElse() throws Exception {
        for (boolean atOnce : new boolean[] {false, true}) {
            StorageDispatcher h = dispatcher(true);
            MemoryStore store = new MemoryStore();
            store.takesWritesAtOnce = atOnce;
            store.failing = true;
            List<CompletableFuture<Object>> writes = new ArrayList<>();
            CompletableFuture<Object> other = new CompletableFuture<>();
            loop.submit(() -> {
                for (int i = 0; i < 2; i++) writes.add(write(h, store, value("k" + i)));
                h.submit(other, () -> other.complete("ran"));
            }).get(5, TimeUnit.SECONDS);
            assertThat(other.get(5, TimeUnit.SECONDS)).isEqualTo("ran");
            for (CompletableFuture<Object> r : writes) {
                assertThatThrownBy(() -> r.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IOException.class);
            }
            // Both writes of the run in one store call, whichever it took.
            assertThat(store.tryWriteCalls).isEqualTo(atOnce ? List.of(2) : List.of());
            assertThat(store.writeCalls).isEqualTo(atOnce ? List.of() : List.of(2));
        }
    }

    /** An entry the store refuses (too large) fails its own write only, not the others of its run. */
    @Test
    void aRefusedEntryFailsOnlyItsOwnWrite() throws Exception {
        StorageDispatcher h = dispatcher(true);
        MemoryStore store = new MemoryStore();
        store.refusedKey = "k1";
        List<CompletableFuture<Object>> writes = new ArrayList<>();
        loop.submit(() -> {
            for (int i = 0; i < 3; i++) writes.add(write(h, store, value("k" + i)));
        }).get(5, TimeUnit.SECONDS);
        assertThat(writes.get(0).get(5, TimeUnit.SECONDS)).isEqualTo("written");
        assertThatThrownBy(() -> writes.get(1).get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalArgumentException.class);
        assertThat(writes.get(2).get(5, TimeUnit.SECONDS)).isEqualTo("written");
        assertThat(store.get("k0".getBytes())).isNotNull();
        assertThat(store.get("k1".getBytes())).isNull();
        assertThat(store.get("k2".getBytes())).isNotNull();
    }

    /**
     * Writes a store can commit at once are made on the event loop, with their tasks, and only what
     * follows the first call that cannot is handed over, in order: a read after them sees them.
     */
    @Test
    void leadingWritesTheStoreTakesAtOnceRunOnTheLoopAndTheRestIsHandedOverInOrder() throws Exception {
        StorageDispatcher h = dispatcher(true);
        MemoryStore store = new MemoryStore();
        store.takesWritesAtOnce = true;
        List<CompletableFuture<Object>> results = new ArrayList<>();
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        loop.submit(() -> {
            for (int i = 0; i < 2; i++) {
                CompletableFuture<Object> r = new CompletableFuture<>();
                h.submitWrite(r, store, value("k" + i), () -> {
                    threads.add(Thread.currentThread().getName());
                    r.complete("written");
                });
                results.add(r);
            }
            CompletableFuture<Object> read = new CompletableFuture<>();
            results.add(read);
            h.submit(read, () -> read.complete(store.get("k1".getBytes()) != null ? "seen" : "missed"));
            results.add(write(h, store, value("k2")));
        }).get(5, TimeUnit.SECONDS);
        CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        assertThat(results).extracting(CompletableFuture::join).containsExactly("written", "written", "seen", "written");
        assertThat(store.tryWriteCalls).containsExactly(2);
        assertThat(threads).hasSize(2).allMatch(t -> !t.startsWith("storage-"));
        assertThat(store.writeCalls).containsExactly(1);
        assertThat(handOvers).hasValue(1);
    }

    /**
     * Reads of a store whose data is in memory run on the event loop, in order with writes it
     * takes at once; a read of a store that may wait, and everything after it, is handed over.
     */
    @Test
    void readsOfAStoreInMemoryRunOnTheLoopAndTheOthersAreHandedOver() throws Exception {
        StorageDispatcher h = dispatcher(true);
        MemoryStore inMemory = new MemoryStore();
        inMemory.readsAtOnce = true;
        inMemory.takesWritesAtOnce = true;
        MemoryStore onDisk = new MemoryStore();
        List<CompletableFuture<Object>> results = new ArrayList<>();
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        loop.submit(() -> {
            results.add(write(h, inMemory, value("k0")));
            results.add(read(h, inMemory, "k0", threads));
            results.add(read(h, onDisk, "k0", threads));
            results.add(read(h, inMemory, "k0", threads));
        }).get(5, TimeUnit.SECONDS);
        CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        assertThat(results).extracting(CompletableFuture::join).containsExactly("written", "seen", "missed", "seen");
        assertThat(threads).hasSize(3);
        assertThat(threads.get(0)).doesNotStartWith("storage-");
        assertThat(threads.subList(1, 3)).allMatch(t -> t.startsWith("storage-"));
        assertThat(handOvers).hasValue(1);
    }

    /**
     * A read whose block turns out not to be in memory is made on a storage thread after all, and
     * the calls after it with it, in order; the reads before it stay on the loop.
     */
    @Test
    void aReadThatWouldWaitIsHandedOverWithTheCallsAfterIt() throws Exception {
        StorageDispatcher h = dispatcher(true);
        MemoryStore store = new MemoryStore();
        store.readsAtOnce = true;
        store.put("hot".getBytes(), "v".getBytes(), 1);
        store.put("cold".getBytes(), "v".getBytes(), 1);
        store.cold.add("cold");
        List<CompletableFuture<Object>> results = new ArrayList<>();
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        loop.submit(() -> {
            results.add(read(h, store, "hot", threads));
            results.add(read(h, store, "cold", threads));
            results.add(read(h, store, "hot", threads));
        }).get(5, TimeUnit.SECONDS);
        CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        assertThat(results).extracting(CompletableFuture::join).containsExactly("seen", "seen", "seen");
        assertThat(threads).hasSize(4).as("hot on the loop; cold tried there, then cold and hot handed over");
        assertThat(threads.subList(0, 2)).noneMatch(t -> t.startsWith("storage-"));
        assertThat(threads.subList(2, 4)).allMatch(t -> t.startsWith("storage-"));
        assertThat(handOvers).hasValue(1);
    }

    private static CompletableFuture<Object> read(StorageDispatcher h, MemoryStore store, String key, List<String> threads) {
        CompletableFuture<Object> r = new CompletableFuture<>();
        h.submitRead(r, store, () -> {
            threads.add(Thread.currentThread().getName());
            return store.get(key.getBytes()) != null ? "seen" : "missed";
        });
        return r;
    }
}
