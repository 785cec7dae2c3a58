package dht.node.rpc;

import dht.node.cluster.HybridLogicalClock;
import dht.node.cluster.MembershipFence;
import dht.node.cluster.Replica;
import dht.node.cluster.ReplicaBusyException;
import dht.node.cluster.StaleMembershipException;
import dht.node.cluster.TimestampRefusedException;
import dht.node.rpc.ReplicaBatch.Op;
import dht.node.rpc.ReplicaBatch.Result;
import dht.storage.Entry;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A peer as a replica, over the internal point protocol: one request per operation, or, with
 * batching, the operations an event loop sends this peer in one pass in one request
 * ({@link PeerBatcher}; reads and writes by default, see {@code -Ddht.peer.batch}). Reads and
 * writes travel in separate batches: a replica answers a batch when all of it is done and runs a
 * batch holding a write through its write hand-off, so a read sharing a batch with writes would
 * wait for them (and, under every-write, for their fsyncs). Every
 * answer's timestamps are observed by this node's clock, so that a write this node stamps later is
 * above anything the peer has seen; a version whose timestamp the clock refuses (too far ahead)
 * fails its read, as does a write the peer refused for its timestamp (409 with
 * {@code X-Dht-Clock-Refused}): both count as a failed replica. Every call carries this node's
 * membership version; a peer on a newer one refuses it (409 with {@code X-Dht-Membership}), which
 * fails the call with {@link StaleMembershipException} and has the fence pull that version.
 */
final class RemoteReplica implements Replica {
    private static final byte[] EMPTY = new byte[0];

    private final String url;
    private final PeerClient client;
    private final HybridLogicalClock clock;
    private final MembershipFence fence;
    /** The headers of a read or batch on the fence's version, made once per version. */
    private volatile VersionHeaders versionHeaders = new VersionHeaders(-1, null);
    /** Null when every read goes out on its own. */
    private final PeerBatcher reads;
    /** Null when every write goes out on its own. */
    private final PeerBatcher writes;

    /**
     * @param batchLoops  the event loops whose operations to this peer are coalesced per pass, or
     *                    null to send each operation on its own
     * @param batchWrites whether writes are coalesced too, not only reads
     */
    RemoteReplica(String url, PeerClient client, HybridLogicalClock clock, MembershipFence fence,
                  EventLoopGroup batchLoops, boolean batchWrites) {
        this.url = url;
        this.client = client;
        this.clock = clock;
        this.fence = fence;
        this.reads = batchLoops == null ? null : new PeerBatcher(batchLoops, this::single, this::batch);
        this.writes = batchLoops == null || !batchWrites ? null : new PeerBatcher(batchLoops, this::single, this::batch);
    }

    @Override
    public String url() {
        return url;
    }

    /**
     * Only a silent peer: a call to it fails at once anyway. One down because it refused
     * connections is still tried (the first call after its restart succeeds), so it is not.
     */
    @Override
    public boolean knownDown() {
        return client.isSilent(url);
    }

    @Override
    public CompletableFuture<Entry> read(byte[] key) {
        return read(key, fence.version());
    }

    @Override
    public CompletableFuture<Entry> read(byte[] key, dht.storage.ReadBudget budget, long placedBy) {
        return read(key, placedBy);
    }

    private CompletableFuture<Entry> read(byte[] key, long placedBy) {
        return call(Op.read(key), placedBy).thenApply(r -> switch (r.status()) {
            case ReplicaBatch.FOUND -> Entry.value(key, r.value(), r.timestamp(), r.expiry());
            case ReplicaBatch.TOMBSTONE -> Entry.tombstone(key, r.timestamp());
            case ReplicaBatch.NOT_FOUND -> null;
            default -> throw failed(r);
        });
    }

    /** A write placed by no particular version (a hint, a hand-over): the fence's current one. */
    @Override
    public CompletableFuture<Void> write(Entry entry) {
        return write(entry, fence.version());
    }

    @Override
    public CompletableFuture<Void> write(Entry entry, long placedBy) {
        return call(Op.write(entry), placedBy).thenApply(r -> {
            if (r.status() != ReplicaBatch.WRITTEN) throw failed(r);
            return null;
        });
    }

    /** Sends {@code op} with the membership version it was placed by. */
    private CompletableFuture<Result> call(Op op, long placedBy) {
        PeerBatcher batcher = op.isWrite() ? writes : reads;
        return batcher != null ? batcher.submit(op, placedBy) : single(op, placedBy);
    }

    /** One operation, one request of /internal/v0/entity. */
    private CompletableFuture<Result> single(Op op, long version) {
        long sentAt = clock.physicalNow();
        if (!op.isWrite()) {
            return client.send(url, HttpMethod.GET, InternalProtocol.entityUri(op.key()), versionHeaders(version), EMPTY).thenApply(r -> {
                observeClock(r, sentAt);
                if (r.status() == 404) return Result.NOT_FOUND_RESULT;
                if (r.status() != 200) throw unexpected(r);
                long ts = Long.parseLong(r.headers().get(InternalProtocol.TIMESTAMP));
                if (!clock.observe(ts, url)) throw clock.refusal(ts);
                return "1".equals(r.headers().get(InternalProtocol.TOMBSTONE))
                        ? new Result(ReplicaBatch.TOMBSTONE, ts, null, null)
                        : new Result(ReplicaBatch.FOUND, ts, r.body(), null,
                                Long.parseLong(r.headers().get(InternalProtocol.EXPIRY, "0")));
            });
        }
        HttpHeaders headers = new DefaultHttpHeaders();
        if (version > 0) headers.set(InternalProtocol.MEMBERSHIP, Long.toString(version));
        headers.set(InternalProtocol.TIMESTAMP, Long.toString(op.timestamp()));
        if (op.expiry() != 0) headers.set(InternalProtocol.EXPIRY, Long.toString(op.expiry()));
        boolean delete = op.kind() == ReplicaBatch.DELETE;
        int expected = delete ? 202 : 201;
        return client.send(url, delete ? HttpMethod.DELETE : HttpMethod.PUT, InternalProtocol.entityUri(op.key()),
                headers, delete ? EMPTY : op.value()).thenApply(r -> {
            observeClock(r, sentAt);
            if (r.status() != expected) throw unexpected(r);
            return Result.WRITTEN_RESULT;
        });
    }

    /** Several operations, one request of /internal/v0/batch. */
    private CompletableFuture<List<Result>> batch(List<Op> ops, long version) {
        long sentAt = clock.physicalNow();
        return client.send(url, HttpMethod.POST, InternalProtocol.BATCH_PATH, versionHeaders(version), ReplicaBatch.encodeOps(ops)).thenApply(r -> {
            observeClock(r, sentAt);
            if (r.status() != 200) throw unexpected(r);
            List<Result> results;
            try {
                results = ReplicaBatch.decodeResults(r.body(), ops.size());
            } catch (ReplicaBatch.Malformed e) {
                throw new IllegalStateException("replica " + url + " sent a malformed batch answer: " + e.getMessage());
            }
            for (int i = 0; i < results.size(); i++) {
                Result x = results.get(i);
                if ((x.status() == ReplicaBatch.FOUND || x.status() == ReplicaBatch.TOMBSTONE)
                        && !clock.observe(x.timestamp(), url)) {
                    results.set(i, Result.failed(clock.refusal(x.timestamp()).getMessage()));
                }
            }
            return results;
        });
    }

    private record VersionHeaders(long version, HttpHeaders headers) {
    }

    /**
     * Headers that carry membership version {@code v} alone, or null for 0 (the fence follows no
     * version yet: none is sent); the client copies them into each request.
     */
    private HttpHeaders versionHeaders(long v) {
        if (v == 0) return null;
        VersionHeaders h = versionHeaders;
        if (h.version != v) {
            HttpHeaders headers = new DefaultHttpHeaders();
            headers.set(InternalProtocol.MEMBERSHIP, Long.toString(v));
            h = new VersionHeaders(v, headers);
            versionHeaders = h;
        }
        return h.headers;
    }

    private void observeClock(PeerResponse r, long sentAt) {
        hearClock(clock, r, url, sentAt);
    }

    /**
     * Lets {@code clock} hear the clock reading {@code peer}'s answer {@code r} carries, if any, to a
     * call sent at {@code sentAt}: one too far ahead is refused, counted and logged; a malformed one
     * only loses the optimisation and the evidence, and the status decides the answer.
     */
    static void hearClock(HybridLogicalClock clock, PeerResponse r, String peer, long sentAt) {
        String c = r.headers().get(InternalProtocol.CLOCK);
        if (c == null) return;
        try {
            clock.peerClock(Long.parseLong(c), peer, sentAt);
        } catch (NumberFormatException ignored) {
            // see above
        }
    }

    private CompletionException failed(Result r) {
        return new CompletionException(new IllegalStateException("replica " + url + " failed: " + r.error()));
    }

    private RuntimeException unexpected(PeerResponse r) {
        String message = "replica " + url + " answered " + r.status() + ": "
                + new String(r.body(), 0, Math.min(200, r.body().length), StandardCharsets.UTF_8).trim();
        if (r.status() == 409 && r.headers().contains(InternalProtocol.CLOCK_REFUSED)) {
            clock.refusedByPeer(url);
            return new TimestampRefusedException(message);
        }
        if (r.status() == 409 && r.headers().contains(InternalProtocol.MEMBERSHIP)) {
            long theirs;
            try {
                theirs = Long.parseLong(r.headers().get(InternalProtocol.MEMBERSHIP));
            } catch (NumberFormatException e) {
                return new IllegalStateException(message);
            }
            fence.heard(theirs, url);
            return new StaleMembershipException(url, theirs, message);
        }
        boolean busy = r.status() == 503 && !r.headers().contains(InternalProtocol.STOPPING);
        return busy ? new ReplicaBusyException(message) : new IllegalStateException(message);
    }
}
