package dht.node.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FirstClockReadingTest {
    private final AtomicInteger asks = new AtomicInteger();
    private final CompletableFuture<Void> ask = new CompletableFuture<>();
    private final AtomicBoolean heard = new AtomicBoolean();
    private final List<String> started = new CopyOnWriteArrayList<>();

    private FirstClockReading gate(Duration wait) {
        return new FirstClockReading(() -> {
            asks.incrementAndGet();
            return ask;
        }, heard::get, wait);
    }

    private CompletableFuture<String> write(FirstClockReading gate, String name) {
        return gate.after(() -> {
            started.add(name);
            return CompletableFuture.completedFuture(name);
        });
    }

    @Test
    void writesWaitForTheFirstAskAndThenRunInTheOrderTheyCame() throws Exception {
        FirstClockReading gate = gate(Duration.ofSeconds(30));
        assertThat(gate.isOpen()).isFalse();
        CompletableFuture<String> a = write(gate, "a");
        CompletableFuture<String> b = write(gate, "b");
        CompletableFuture<String> c = write(gate, "c");
        assertThat(started).isEmpty();
        assertThat(asks).hasValue(1);

        ask.complete(null);

        assertThat(List.of(a.get(1, TimeUnit.SECONDS), b.get(1, TimeUnit.SECONDS), c.get(1, TimeUnit.SECONDS)))
                .containsExactly("a", "b", "c");
        assertThat(started).containsExactly("a", "b", "c");
        assertThat(gate.isOpen()).isTrue();
        assertThat(asks).hasValue(1);
    }

    @Test
    void aPeerHeardBeforeAnyWriteOpensItWithoutAsking() {
        FirstClockReading gate = gate(Duration.ofSeconds(30));
        heard.set(true);
        assertThat(gate.isOpen()).isTrue();
        assertThat(asks).hasValue(0);
    }

    @Test
    void anAskNoPeerAnswersOpensItAfterTheWait() throws Exception {
        FirstClockReading gate = gate(Duration.ofMillis(200));
        CompletableFuture<String> a = write(gate, "a");
        assertThat(a.get(5, TimeUnit.SECONDS)).isEqualTo("a");
        // The drain answers the held write before it marks the gate open: wait for the mark.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (!gate.isOpen() && System.nanoTime() < deadline) Thread.sleep(1);
        assertThat(gate.isOpen()).isTrue();
    }

    @Test
    void aWriteThatThrowsFailsItsOwnAnswerOnly() throws Exception {
        FirstClockReading gate = gate(Duration.ofSeconds(30));
        CompletableFuture<String> bad = gate.after(() -> {
            throw new ClockDisagreementException("off");
        });
        CompletableFuture<String> good = write(gate, "good");
        ask.complete(null);
        assertThat(bad).failsWithin(Duration.ofSeconds(1));
        assertThat(good.get(1, TimeUnit.SECONDS)).isEqualTo("good");
    }
}
