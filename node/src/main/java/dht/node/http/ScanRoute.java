package dht.node.http;

import dht.node.cluster.ClusterScanner;
import dht.node.cluster.JoinStreamKeys;
import dht.node.cluster.JoinStreams;
import dht.node.cluster.MembershipChangeException;
import dht.node.cluster.Quorum;
import dht.node.text.Plural;
import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.Store;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Executor;

/**
 * Range scans: the public {@code /v0/entities} (the whole cluster's data, merged, or with
 * {@code scope=local} this node's store alone; on a single node always its store) and the internal {@code /internal/v0/entities} (this node's store in the wire
 * format, tombstones included). All are streamed by {@link ScanStream} under a scan permit, on a
 * scan worker, or for a join stream on a join sender (a thread of its own, at its own priority).
 * With {@code limit=N} either ends, complete, after N entries (the internal one after N values,
 * the tombstones among them not counted). With {@code joiner=URL&version=V} the internal one
 * is a join stream: only the keys this node sends to that joining node ({@link JoinStreamKeys}),
 * counted in this node's rebalance status until the stream is closed ({@link JoinStreams}).
 */
public final class ScanRoute implements Route {
    private final boolean internal;
    private final Store store;
    private final ClusterScanner clusterScanner;
    private final java.util.function.Supplier<ClusterSizes> sizes;
    private final Admission admission;
    private final Executor workers;
    /** Where join streams run instead of {@link #workers} (their own threads, at their own priority). */
    private final Executor joinSenders;
    /** The join streams this node serves; null when it takes no membership changes. */
    private final JoinStreams joinStreams;

    private ScanRoute(boolean internal, Store store, ClusterScanner clusterScanner,
                      java.util.function.Supplier<ClusterSizes> sizes, Admission admission, Executor workers,
                      JoinStreams joinStreams, Executor joinSenders) {
        this.internal = internal;
        this.joinSenders = joinSenders;
        this.joinStreams = joinStreams;
        this.store = store;
        this.clusterScanner = clusterScanner;
        this.sizes = sizes;
        this.admission = admission;
        this.workers = workers;
    }

    public static ScanRoute publicScan(Store store, ClusterScanner clusterScanner, int clusterSize,
                                       Admission admission, Executor workers) {
        return new ScanRoute(false, store, clusterScanner, () -> ClusterSizes.everyNode(clusterSize), admission, workers,
                null, workers);
    }

    /** As above, with the sizes read for each request: the membership may change. */
    public static ScanRoute publicScan(Store store, ClusterScanner clusterScanner,
                                       java.util.function.Supplier<ClusterSizes> sizes, Admission admission,
                                       Executor workers) {
        return new ScanRoute(false, store, clusterScanner, sizes, admission, workers, null, workers);
    }

    public static ScanRoute internalScan(Store store, Admission admission, Executor workers) {
        return internalScan(store, admission, workers, null, workers);
    }

    /**
     * As above, serving join streams by {@code joinStreams} (null: a join stream is refused), each
     * on {@code joinSenders}.
     */
    public static ScanRoute internalScan(Store store, Admission admission, Executor workers, JoinStreams joinStreams,
                                         Executor joinSenders) {
        return new ScanRoute(true, store, null, () -> ClusterSizes.everyNode(1), admission, workers, joinStreams,
                joinSenders);
    }

    @Override
    public void handle(Request request, AnswerSlot slot) throws BadRequestException {
        if (!request.method().equals(HttpMethod.GET)) {
            slot.respond(Responses.methodNotAllowed("GET"));
            return;
        }
        QueryParams params = request.params();
        byte[] start = params.bytes("start");
        if (start == null || start.length == 0) {
            // The internal form reads from the first key when start is absent.
            if (!internal || start != null) throw new BadRequestException("missing or empty 'start'");
            start = new byte[0];
        }
        byte[] end = params.bytes("end");
        boolean cluster = false;
        int ack = 0;
        if (!internal) {
            String scope = params.string("scope");
            if (scope != null && !scope.equals("local") && !scope.equals("cluster")) {
                throw new BadRequestException("'scope' must be local or cluster");
            }
            // In a cluster a scan covers the whole cluster unless asked for this node's data alone:
            // any node coordinates any request, and one node's store misses writes made while it
            // was down, or with a smaller 'from' that left it out.
            ClusterSizes sized = sizes.get();
            int clusterSize = sized.nodes();
            cluster = clusterSize > 1 ? !"local".equals(scope) : "cluster".equals(scope);
            // Checked whatever the scope, as on /v0/entity: a bad 'ack' is a 400, never ignored.
            // By default a majority of the nodes, and with fewer copies than nodes at least enough
            // that every key has a copy on a node that answered.
            ack = params.positiveInt("ack", Math.max(Quorum.defaultFor(clusterSize).ack(),
                    clusterSize - sized.replicationFactor() + 1));
            if (ack > clusterSize) {
                throw new BadRequestException("'ack' is larger than the cluster (" + Plural.of(clusterSize, "node") + ")");
            }
            // 'from' means nothing to a scan, which reads every node, but the API's rules for it
            // hold on every path: a malformed 'from', one larger than the cluster, or one smaller
            // than an 'ack' given with it, is a 400, checked as /v0/entity checks it. Absent, no
            // 'from' stands against the scan's 'ack', which counts nodes up to the cluster's size
            // (its default is above the replication factor when that is below the cluster's size).
            if (params.bytes("from") != null) QuorumParams.parse(params, sized, false);
        }
        // At most this many entries (0: no limit), the first of the range in key order; on the
        // internal route it counts the values sent, tombstones not (EntryFormat.countsTowardLimit).
        int limit = params.positiveInt("limit", 0);
        JoinStreamKeys joinKeys;
        try {
            joinKeys = internal ? joinKeys(params) : null;
        } catch (MembershipChangeException e) {
            slot.respond(Responses.text(HttpResponseStatus.valueOf(e.status()), e.getMessage()));
            return;
        }
        // An empty range is still answered as a stream, chunked like any other (no entries, then
        // the terminating chunk), so a client needs no special case.
        boolean empty = end != null && Arrays.compareUnsigned(end, start) <= 0;
        if (slot.refuseIfStopping(admission)) return;
        if (!internal && request.http().protocolVersion().equals(HttpVersion.HTTP_1_0)) {
            // The contract's scan is one chunk per entry; HTTP/1.0 has no chunked encoding, and a
            // body ended by the close would run the entries together with nothing to split them
            // at (and break "every response carries Content-Length or chunked"). Buffering the
            // whole range to give it a Content-Length is what a scan must never do.
            slot.respond(Responses.upgradeRequired("a scan is streamed with chunked encoding: send it as HTTP/1.1"));
            return;
        }
        if (!admission.tryAcquireScan()) {
            slot.respond(Responses.overloaded("overloaded: too many scans in flight"));
            return;
        }
        byte[] from = start;
        int quorum = ack;
        String description = (internal ? "internal " : cluster ? "cluster " : "")
                + "[" + new String(start, StandardCharsets.UTF_8) + ", "
                + (end == null ? "end" : new String(end, StandardCharsets.UTF_8)) + ")"
                + (limit > 0 ? " limit " + limit : "") + (joinKeys != null ? " for a joiner" : "");
        JoinStreamKeys keys = joinKeys;
        ScanStream.Source source = empty ? ScanRoute::nothing
                : cluster ? () -> clusterScanner.scan(from, end, quorum, limit)
                : keys != null ? () -> joinStreams.send(() -> store.scan(from, end, admission.scanMemory()), keys)
                : () -> store.scan(from, end, admission.scanMemory());
        slot.stream(new ScanStream(source, internal ? EntryFormat.WIRE : EntryFormat.PUBLIC,
                keys != null ? joinSenders : workers, admission::releaseScan, description, limit));
    }

    /** The keys of a join stream ({@code joiner=URL&version=V[&instead=URL]}), or null for a plain internal scan. */
    private JoinStreamKeys joinKeys(QueryParams params) throws BadRequestException, MembershipChangeException {
        if (params.bytes("joiner") == null && params.bytes("version") == null) return null;
        String joiner = params.string("joiner");
        long version = params.longInRange("version", 1, Long.MAX_VALUE, -1);
        if (joiner == null || joiner.isEmpty() || version < 0) {
            throw new BadRequestException("a join stream needs both 'joiner' and 'version'");
        }
        String instead = params.string("instead");
        if (instead != null && instead.isEmpty()) throw new BadRequestException("'instead' must name a member");
        if (joinStreams == null) throw new MembershipChangeException(409, "this node takes no membership changes");
        return joinStreams.keys(joiner, version, instead);
    }

    private static CloseableIterator<Entry> nothing() {
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return false;
            }

            @Override
            public Entry next() {
                throw new java.util.NoSuchElementException();
            }

            @Override
            public void close() {
            }
        };
    }
}
