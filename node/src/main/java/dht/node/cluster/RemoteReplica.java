package dht.node.cluster;

import dht.storage.Entry;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.concurrent.CompletableFuture;

/**
 * A peer as a replica, over the internal point protocol. Every answer's timestamps are observed by
 * this node's clock, so that a write this node stamps later is above anything the peer has seen.
 */
final class RemoteReplica implements Replica {
    private static final byte[] EMPTY = new byte[0];

    private final String url;
    private final PeerClient client;
    private final HybridLogicalClock clock;

    RemoteReplica(String url, PeerClient client, HybridLogicalClock clock) {
        this.url = url;
        this.client = client;
        this.clock = clock;
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public CompletableFuture<Entry> read(byte[] key) {
        return client.send(url, HttpMethod.GET, InternalProtocol.entityUri(key), null, EMPTY).thenApply(r -> {
            observeClock(r);
            if (r.status() == 404) return null;
            if (r.status() != 200) throw unexpected(r);
            long ts = Long.parseLong(r.headers().get(InternalProtocol.TIMESTAMP));
            clock.observe(ts);
            return "1".equals(r.headers().get(InternalProtocol.TOMBSTONE)) ? Entry.tombstone(key, ts)
                    : Entry.value(key, r.body(), ts);
        });
    }

    @Override
    public CompletableFuture<Void> write(Entry entry) {
        HttpHeaders headers = new DefaultHttpHeaders();
        headers.set(InternalProtocol.TIMESTAMP, Long.toString(entry.timestamp()));
        HttpMethod method = entry.isTombstone() ? HttpMethod.DELETE : HttpMethod.PUT;
        int expected = entry.isTombstone() ? 202 : 201;
        byte[] body = entry.isTombstone() ? EMPTY : entry.value();
        return client.send(url, method, InternalProtocol.entityUri(entry.key()), headers, body).thenApply(r -> {
            observeClock(r);
            if (r.status() != expected) throw unexpected(r);
            return null;
        });
    }

    private void observeClock(PeerResponse r) {
        String c = r.headers().get(InternalProtocol.CLOCK);
        if (c != null) {
            try {
                clock.observe(Long.parseLong(c));
            } catch (NumberFormatException ignored) {
                // a malformed clock header only loses an optimisation; the status decides the answer
            }
        }
    }

    private RuntimeException unexpected(PeerResponse r) {
        return new IllegalStateException("replica " + url + " answered " + r.status() + ": "
                + new String(r.body(), 0, Math.min(200, r.body().length), java.nio.charset.StandardCharsets.UTF_8).trim());
    }
}
