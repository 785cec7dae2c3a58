package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dht.node.cluster.HybridLogicalClock;
import dht.node.cluster.MembershipFence;
import dht.node.cluster.TestLoops;
import dht.storage.Entry;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a coordinator's replica calls to one peer look like on the wire when they are batched: the
 * reads and the writes of one loop pass each travel as one batch, never together. (A replica
 * answers a batch when all of it is done and runs a batch holding a write through its write
 * hand-off, so a read in a batch with writes would wait for them.)
 */
class RemoteReplicaBatchTest {
    private HttpServer peer;
    private EventLoopGroup loops;
    private PeerClient client;
    private String peerUrl;
    /** Per batch the peer received: the kinds of its operations, in order. */
    private final List<List<String>> batches = new CopyOnWriteArrayList<>();
    private final List<String> singles = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        peer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        peer.createContext("/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getPath();
            exchange.getResponseHeaders().set(ClusterSecret.ANSWER_HEADER, MemberAnswer.UNSIGNED);
            if (path.equals(InternalProtocol.BATCH_PATH)) {
                List<ReplicaBatch.Result> results = new ArrayList<>();
                List<String> kinds = new ArrayList<>();
                try {
                    for (ReplicaBatch.Op op : ReplicaBatch.decodeOps(body)) {
                        kinds.add(op.isWrite() ? "write" : "read");
                        results.add(op.isWrite() ? ReplicaBatch.Result.WRITTEN_RESULT : ReplicaBatch.Result.NOT_FOUND_RESULT);
                    }
                } catch (ReplicaBatch.Malformed e) {
                    exchange.sendResponseHeaders(400, -1);
                    exchange.close();
                    return;
                }
                batches.add(kinds);
                byte[] answer = ReplicaBatch.encodeResults(results);
                exchange.sendResponseHeaders(200, answer.length);
                exchange.getResponseBody().write(answer);
            } else {
                String method = exchange.getRequestMethod();
                singles.add(method);
                exchange.sendResponseHeaders(method.equals("GET") ? 404 : method.equals("PUT") ? 201 : 202, -1);
            }
            exchange.close();
        });
        peer.start();
        peerUrl = "http://127.0.0.1:" + peer.getAddress().getPort();
        loops = TestLoops.start(1);
        client = new PeerClient("http://127.0.0.1:1", List.of("http://127.0.0.1:1", peerUrl), Duration.ofSeconds(2), loops);
    }

    @AfterEach
    void stop() throws Exception {
        TestLoops.stop(client, loops);
        peer.stop(0);
    }

    @Test
    void readsAndWritesOfOnePassTravelInSeparateBatches() throws Exception {
        RemoteReplica replica = new RemoteReplica(peerUrl, client, new HybridLogicalClock(), new MembershipFence(), loops, true);
        List<CompletableFuture<?>> calls = onePass(replica);
        for (CompletableFuture<?> c : calls) c.get(5, TimeUnit.SECONDS);
        assertThat(batches).containsExactlyInAnyOrder(
                List.of("read", "read", "read"),
                List.of("write", "write", "write"));
        assertThat(singles).isEmpty();
    }

    @Test
    void withWritesNotBatchedOnlyTheReadsShareARequest() throws Exception {
        RemoteReplica replica = new RemoteReplica(peerUrl, client, new HybridLogicalClock(), new MembershipFence(), loops, false);
        List<CompletableFuture<?>> calls = onePass(replica);
        for (CompletableFuture<?> c : calls) c.get(5, TimeUnit.SECONDS);
        assertThat(batches).containsExactly(List.of("read", "read", "read"));
        assertThat(singles).containsExactlyInAnyOrder("PUT", "PUT", "DELETE");
    }

    /** Three reads and three writes, interleaved, made in one task on the loop: one pass. */
    private List<CompletableFuture<?>> onePass(RemoteReplica replica) throws Exception {
        CompletableFuture<List<CompletableFuture<?>>> made = new CompletableFuture<>();
        ((EventLoop) loops.next()).execute(() -> {
            List<CompletableFuture<?>> calls = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
                calls.add(replica.read(key));
                calls.add(replica.write(i == 2 ? Entry.tombstone(key, 10 + i) : Entry.value(key, "v".getBytes(StandardCharsets.UTF_8), 10 + i)));
            }
            made.complete(calls);
        });
        return made.get(5, TimeUnit.SECONDS);
    }
}
