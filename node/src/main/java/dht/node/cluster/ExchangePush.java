package dht.node.cluster;

import dht.storage.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Entries an anti-entropy exchange sends one peer, in batches of bounded size. Each batch spends
 * the exchange's byte budget and is sent only while {@code stillOn} passes (it throws once this
 * node's membership version moved), so no key is pushed by a replica set one side no longer has.
 */
final class ExchangePush {
    private static final int PUSH_ENTRIES = 1_000;
    private static final long PUSH_BYTES = 512L << 10;

    private final TreeTransport transport;
    private final ByteRate rate;
    private final String peer;
    private final Runnable stillOn;
    private final ExchangeCounts c;
    private final List<Entry> batch = new ArrayList<>();
    private long bytes;

    ExchangePush(TreeTransport transport, ByteRate rate, String peer, Runnable stillOn, ExchangeCounts c) {
        this.transport = transport;
        this.rate = rate;
        this.peer = peer;
        this.stillOn = stillOn;
        this.c = c;
    }

    /**
     * Queues {@code e} (null: nothing to send), sending the batch once it is full. A batch is sent
     * before a version would take it past {@link #PUSH_BYTES}, so each batch is within that or is
     * one version alone: a peer takes an internal body of one value at its {@code --max-body}, not
     * more (RequestAssembler).
     */
    void add(Entry e) throws InterruptedException, ExecutionException, TimeoutException {
        if (e == null) return;
        long size = AntiEntropy.wireSize(e);
        if (!batch.isEmpty() && bytes + size > PUSH_BYTES) flush();
        batch.add(e);
        bytes += size;
        if (batch.size() >= PUSH_ENTRIES || bytes >= PUSH_BYTES) flush();
    }

    /** Sends what is queued and waits for the peer to have written it all. */
    void flush() throws InterruptedException, ExecutionException, TimeoutException {
        if (batch.isEmpty()) return;
        rate.spend(bytes);
        stillOn.run();
        AntiEntropy.await(transport.push(peer, List.copyOf(batch)));
        c.keysSent.add(batch.size());
        c.bytesSent.add(bytes);
        batch.clear();
        bytes = 0;
    }
}
