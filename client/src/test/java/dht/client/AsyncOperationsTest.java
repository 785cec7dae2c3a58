package dht.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The asynchronous forms: the same answers as the blocking ones, delivered through futures. */
class AsyncOperationsTest {
    @TempDir
    static Path dir;
    static RunningNode node;
    static DhtClient client;

    @BeforeAll
    static void start() throws Exception {
        node = RunningNode.start(dir);
        client = DhtClient.create(node.url());
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (node != null) node.close();
    }

    @Test
    void manyPutsInFlightAtOnceAreAllReadBack() throws Exception {
        List<CompletableFuture<Void>> puts = IntStream.range(0, 200)
                .mapToObj(i -> client.putAsync("async-" + i, "value-" + i))
                .toList();
        CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

        List<CompletableFuture<java.util.Optional<String>>> gets = IntStream.range(0, 200)
                .mapToObj(i -> client.getStringAsync("async-" + i))
                .toList();
        for (int i = 0; i < gets.size(); i++) {
            assertThat(gets.get(i).get(30, TimeUnit.SECONDS)).contains("value-" + i);
        }
    }

    @Test
    void aDeleteCompletesAndTheKeyReadsAsEmpty() throws Exception {
        client.putAsync("async-doomed", "v")
                .thenCompose(done -> client.deleteAsync("async-doomed"))
                .get(30, TimeUnit.SECONDS);

        assertThat(client.getStringAsync("async-doomed").get(30, TimeUnit.SECONDS)).isEmpty();
    }

    @Test
    void aRefusedRequestCompletesTheFutureWithTheTypedException() {
        CompletableFuture<Void> put = client.putAsync(DhtClient.utf8("k"), DhtClient.utf8("v"),
                WriteOptions.defaults().ack(2).from(1));

        assertThat(put).failsWithin(30, TimeUnit.SECONDS)
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause()
                .isInstanceOf(BadRequestException.class);
    }
}
