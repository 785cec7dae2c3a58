package dht.node.rpc;

import dht.node.cluster.MerkleTree;
import dht.node.cluster.TreePage;
import dht.node.cluster.TreeTransport;
import dht.storage.Entry;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Anti-entropy's side of the internal protocol, over the {@link PeerClient}: the tree and page
 * routes ({@link TreeWire}), and pushes as write batches of {@code /internal/v0/batch}, the
 * replica write path every coordinator's write takes.
 */
final class TreeClient implements TreeTransport {
    private static final byte[] EMPTY = new byte[0];
    private final PeerClient client;
    private final String self;

    TreeClient(PeerClient client, String self) {
        this.client = client;
        this.self = self;
    }

    @Override
    public CompletableFuture<MerkleTree> tree(String peer, long version) {
        return client.send(peer, HttpMethod.GET, TreeWire.treeUri(self, version), null, EMPTY).thenApply(r -> {
            expectOk(peer, r);
            return MerkleTree.decode(r.body());
        });
    }

    @Override
    public CompletableFuture<TreePage> page(String peer, long version, BitSet leaves, byte[] start) {
        return client.send(peer, HttpMethod.POST, TreeWire.pageUri(self, version, start), null, TreeWire.encodeLeaves(leaves))
                .thenApply(r -> {
                    expectOk(peer, r);
                    String next = r.headers().get(InternalProtocol.TREE_NEXT);
                    byte[] nextKey = next == null ? null : InternalProtocol.decode(next);
                    return new TreePage(TreeWire.decodePage(r.body()), nextKey, r.body().length);
                });
    }

    @Override
    public CompletableFuture<Void> push(String peer, List<Entry> entries, long change) {
        List<ReplicaBatch.Op> ops = new ArrayList<>(entries.size());
        for (Entry e : entries) ops.add(ReplicaBatch.Op.write(e));
        return client.send(peer, HttpMethod.POST, InternalProtocol.batchUri(change), null, ReplicaBatch.encodeOps(ops))
                .thenApply(r -> {
                    expectOk(peer, r);
                    List<ReplicaBatch.Result> results;
                    try {
                        results = ReplicaBatch.decodeResults(r.body(), ops.size());
                    } catch (ReplicaBatch.Malformed e) {
                        throw new IllegalStateException(peer + " sent a malformed batch answer: " + e.getMessage());
                    }
                    for (ReplicaBatch.Result x : results) {
                        if (x.status() != ReplicaBatch.WRITTEN) {
                            throw new IllegalStateException(peer + " refused a pushed write: " + x.error());
                        }
                    }
                    return null;
                });
    }

    private static void expectOk(String peer, PeerResponse r) {
        if (r.status() != 200) {
            throw new IllegalStateException(peer + " answered " + r.status() + ": "
                    + new String(r.body(), 0, Math.min(200, r.body().length), StandardCharsets.UTF_8).trim());
        }
    }
}
