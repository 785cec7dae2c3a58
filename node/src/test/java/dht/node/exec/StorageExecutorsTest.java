package dht.node.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every selectable storage executor runs work off the caller's thread and refuses it once shut down. */
class StorageExecutorsTest {
    @ParameterizedTest
    @ValueSource(strings = {"pool", "forkjoin", "virtual"})
    void runsTasksOnItsOwnThreadsAndRefusesThemAfterShutdown(String kind) throws Exception {
        ExecutorService executor = StorageExecutors.create(kind, "blocking", 4);
        CompletableFuture<Thread> ranOn = new CompletableFuture<>();
        executor.execute(() -> ranOn.complete(Thread.currentThread()));
        Thread t = ranOn.get(5, TimeUnit.SECONDS);
        assertThat(t).isNotSameAs(Thread.currentThread());
        assertThat(t.getName()).startsWith("storage-");

        executor.shutdown();
        assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> executor.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }
}
