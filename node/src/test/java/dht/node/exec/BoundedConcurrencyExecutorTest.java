package dht.node.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BoundedConcurrencyExecutorTest {
    final ExecutorService pool = Executors.newFixedThreadPool(16);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void neverRunsMoreThanTheLimitAtOnceAndRunsEveryTask() throws Exception {
        BoundedConcurrencyExecutor bounded = new BoundedConcurrencyExecutor(pool, 3);
        AtomicInteger now = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        int tasks = 2_000;
        CountDownLatch done = new CountDownLatch(tasks);
        // submitted from several threads at once, as event loops do
        ExecutorService submitters = Executors.newFixedThreadPool(4);
        for (int s = 0; s < 4; s++) {
            submitters.execute(() -> {
                for (int i = 0; i < tasks / 4; i++) {
                    bounded.execute(() -> {
                        int n = now.incrementAndGet();
                        most.accumulateAndGet(n, Math::max);
                        long until = System.nanoTime() + 50_000;
                        while (System.nanoTime() < until) Thread.onSpinWait();
                        now.decrementAndGet();
                        done.countDown();
                    });
                }
            });
        }
        try {
            assertThat(done.await(20, TimeUnit.SECONDS)).as("every task ran").isTrue();
        } finally {
            submitters.shutdownNow();
        }
        assertThat(most.get()).as("ran concurrently, but within the limit").isBetween(2, 3);
    }

    @Test
    void tasksBeyondTheLimitWaitForARunningOneAndRunInOrder() throws Exception {
        BoundedConcurrencyExecutor bounded = new BoundedConcurrencyExecutor(pool, 1);
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> order = new CopyOnWriteArrayList<>();
        bounded.execute(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            order.add(0);
        });
        CountDownLatch last = new CountDownLatch(1);
        for (int i = 1; i <= 5; i++) {
            int n = i;
            bounded.execute(() -> {
                order.add(n);
                if (n == 5) last.countDown();
            });
        }
        Thread.sleep(50);
        assertThat(order).as("the slot is taken").isEmpty();
        release.countDown();
        assertThat(last.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5);
    }

    @Test
    void aRejectingDelegateFailsTheQueuedTasksInsteadOfStrandingThem() {
        pool.shutdown();
        BoundedConcurrencyExecutor bounded = new BoundedConcurrencyExecutor(pool, 2);
        List<RejectedExecutionException> told = new CopyOnWriteArrayList<>();
        BoundedConcurrencyExecutor.Rejectable task = new BoundedConcurrencyExecutor.Rejectable() {
            @Override
            public void run() {
                throw new AssertionError("must not run");
            }

            @Override
            public void rejected(RejectedExecutionException e) {
                told.add(e);
            }
        };
        bounded.execute(task);
        assertThat(told).as("told once, not run").hasSize(1);
        assertThatThrownBy(() -> bounded.execute(() -> {
            throw new AssertionError("must not run");
        })).as("a task that cannot be told makes execute throw").isInstanceOf(RejectedExecutionException.class);
    }
}
