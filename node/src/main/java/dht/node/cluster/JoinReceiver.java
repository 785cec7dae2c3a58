package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The joining node's side of a join: reads each member's join stream (its sorted table data,
 * holding only the keys that member sends this node: {@link JoinStreamKeys}), writes them to its
 * store in batches paced by the bytes/s budget, remembering per stream how far it came
 * ({@link JoinProgress}); then ends the join ({@link MembershipChanges#joined}).
 *
 * <p>A member whose stream has failed for {@link #FALLBACK_MILLIS} while the failure detector
 * holds it down is taken as gone for good: each other member sends the keys it would have sent
 * ({@code instead}), every other old replica of each, so the join can end without it (it is that
 * version's laggard, and can then be removed). Were it only slow to restart, the cost is those
 * keys sent two or three times; a stream it had half sent is not needed any more. With one copy
 * of each key (replication factor 1) no one can stand in: the join waits for the member.
 */
final class JoinReceiver {
    private static final Logger log = LoggerFactory.getLogger(JoinReceiver.class);
    private static final long WRITE_BYTES = 1L << 20;
    /**
     * How long a member's stream fails, and it is down, before the others send its keys: longer
     * than a restart takes on a busy machine (JVM start, catch-up), so that a member restarted in
     * time goes on with its own stream, which sends each key once.
     */
    static final long FALLBACK_MILLIS = 30_000;

    private final String self;
    private final MembershipChanges changes;
    private final PeerNetwork net;
    private final Store store;
    private final HybridLogicalClock clock;
    private final ByteRate rate;
    private final MembershipTransport transport;
    private final Path dataDir;
    private final RebalanceCounts counts;
    private final BooleanSupplier closed;

    JoinReceiver(String self, MembershipChanges changes, PeerNetwork net, Store store, HybridLogicalClock clock, ByteRate rate,
                 MembershipTransport transport, Path dataDir, RebalanceCounts counts, BooleanSupplier closed) {
        this.self = self;
        this.changes = changes;
        this.net = net;
        this.store = store;
        this.clock = clock;
        this.rate = rate;
        this.transport = transport;
        this.dataDir = dataDir;
        this.counts = counts;
        this.closed = closed;
    }

    /** Streams every member's keys here, then ends the join; returns when done, or closed. */
    void run() throws IOException, InterruptedException {
        JoinProgress progress = new JoinProgress(dataDir);
        Membership m = changes.state().current();
        List<String> sources = new ArrayList<>(m.members());
        sources.remove(self);
        MembershipTransport.Stored held = MembershipTransport.Stored.NONE;
        for (String s : sources) held = held.plus(transport.stored(s));
        // Each member sends about one owner's share of what it holds (JoinStreamKeys).
        MembershipTransport.Stored share = held.share(m.owners().size());
        counts.begin(m.version(), share.bytes(), share.entries());
        log.info("joining: streaming the keys this node will own from {} (about {} versions, {} bytes as stored)",
                sources, share.entries(), share.bytes());
        // Others can stand in only where every key has another old replica: never with one copy.
        boolean standIn = m.replicationFactor() >= 2 && sources.size() >= 2;
        for (String source : sources) {
            long failingSince = -1;
            while (!closed.getAsBoolean() && stillJoining() && !progress.done(source)) {
                byte[] before = progress.resumeAt(source);
                try {
                    if (stream(source, null, progress, changes.state().current().version())) {
                        progress.finished(source);
                    }
                } catch (ScanSource.ScanSourceException | UncheckedIOException | IOException e) {
                    long now = System.nanoTime();
                    // Failing since the last attempt that moved the resume point on, not since the first failure ever.
                    if (failingSince < 0 || !java.util.Arrays.equals(before, progress.resumeAt(source))) failingSince = now;
                    if (standIn && now - failingSince >= FALLBACK_MILLIS * 1_000_000 && !net.isUp(source)
                            && fromTheOthers(source, sources, progress, m)) {
                        progress.finished(source);
                        break;
                    }
                    log.warn("joining: the stream from {} failed ({}); resuming in 1 s", source, e.getMessage());
                    Thread.sleep(1_000);
                }
            }
        }
        if (!closed.getAsBoolean() && !stillJoining() && !changes.state().current().members().contains(self)) {
            // Called off (bin/dht remove while this node could not be reached): the members own
            // what they owned before, and every stream is refused. MembershipState warned already.
            log.warn("joining: stopped, this node's join was called off (membership version {})",
                    changes.state().current().version());
            return;
        }
        while (!closed.getAsBoolean() && stillJoining()) {
            try {
                changes.joined(self);
            } catch (MembershipChangeException e) {
                log.warn("joining: data is here, but the join cannot end yet ({}); retrying in 2 s", e.getMessage());
                Thread.sleep(2_000);
            }
        }
        if (!closed.getAsBoolean()) {
            progress.clear();
            log.info("joined: {} keys, {} bytes received", counts.keysMoved.get(), counts.bytesMoved.get());
        }
    }

    /** Whether this node is still joining in its current membership version (not called off, not yet ended). */
    private boolean stillJoining() {
        return changes.state().current().joining().contains(self);
    }

    /**
     * The keys {@code gone} would have sent, from every other member in its stead; false when one of
     * those streams failed (the caller tries {@code gone} again, then this, each stream resuming).
     */
    private boolean fromTheOthers(String gone, List<String> sources, JoinProgress progress, Membership m)
            throws IOException, InterruptedException {
        log.warn("joining: {} is down and its stream has failed for {} s: the other members send its keys instead",
                gone, FALLBACK_MILLIS / 1000);
        for (String other : sources) {
            if (other.equals(gone)) continue;
            String name = streamName(other, gone);
            if (progress.done(name)) continue;
            try {
                if (!stream(other, gone, progress, changes.state().current().version())) return false;
                progress.finished(name);
            } catch (ScanSource.ScanSourceException | UncheckedIOException | IOException e) {
                log.warn("joining: the stream from {} in the stead of {} failed ({})", other, gone, e.getMessage());
                return false;
            }
        }
        return true;
    }

    /**
     * One stream under membership {@code version} ({@code source}'s own keys, or those it sends in
     * the stead of {@code instead}), from where it stopped, written here. Keys this node would not
     * own are still left out, in case a source sent more.
     *
     * @return whether it was read to its end: false when this node closed first (then the batch
     *         not yet written is dropped, and the stream must not be taken as done)
     */
    private boolean stream(String source, String instead, JoinProgress progress, long version)
            throws IOException, InterruptedException {
        String name = streamName(source, instead);
        byte[] from = progress.resumeAt(name);
        if (from != null) log.info("joining: resuming the stream from {} at the last key written before", name);
        List<Entry> batch = new ArrayList<>();
        long batchBytes = 0;
        byte[] last = null;
        long unpaid = 0;
        long keys = 0;
        long bytes = 0;
        long future = 0;
        try (ScanSource scan = net.openJoinStream(source, from == null ? new byte[0] : from, self, version, instead)) {
            while (!closed.getAsBoolean() && scan.hasNext()) {
                Entry e = scan.next();
                long size = RebalanceCounts.bytesOf(e);
                counts.scanned(size);
                keys++;
                bytes += size;
                unpaid += size;
                if (unpaid >= 64 << 10) {
                    rate.spend(unpaid);
                    unpaid = 0;
                }
                last = e.key();
                if (!changes.state().topology().keepsOn(e, self)) continue;
                if (!clock.acceptable(e.timestamp())) {
                    // Stamped beyond the max offset (a source whose clock was ahead): refused here
                    // as a replica refuses such a write, and kept out of this store, where it
                    // would outrank the writes made meanwhile and hold this node's clock back.
                    future++;
                    continue;
                }
                batch.add(e);
                batchBytes += size;
                if (batchBytes >= WRITE_BYTES) {
                    // Kept, then its resume point, then counted: keysMoved says the batch is here,
                    // and one who kills this node on that may expect the restart to resume past it.
                    store(batch);
                    progress.at(name, last);
                    count(batch, batchBytes);
                    batch = new ArrayList<>();
                    batchBytes = 0;
                }
            }
            if (closed.getAsBoolean()) return false;
            write(batch, batchBytes);
        }
        log.info("joining: the stream from {} is done: {} keys, {} bytes received{}", name, keys, bytes,
                from == null ? "" : " since the resume");
        if (future > 0) {
            log.warn("joining: left out {} versions from {} stamped more than the max clock offset ({} ms) ahead of this "
                    + "node's clock (the source's clock was ahead when it stamped them)", future, name, clock.maxOffsetMillis());
        }
        return true;
    }

    /** How {@link JoinProgress} names a stream: the source, and whom it sends for when not itself. */
    private static String streamName(String source, String instead) {
        return instead == null ? source : source + "+instead+" + instead;
    }

    private void write(List<Entry> batch, long bytes) throws IOException {
        store(batch);
        count(batch, bytes);
    }

    private void store(List<Entry> batch) throws IOException {
        if (batch.isEmpty()) return;
        long newest = 0;
        for (Entry e : batch) newest = Math.max(newest, e.timestamp());
        clock.observe(newest, "a streamed version");
        store.write(batch);
    }

    private void count(List<Entry> batch, long bytes) {
        counts.keysMoved.addAndGet(batch.size());
        counts.bytesMoved.addAndGet(bytes);
    }
}
