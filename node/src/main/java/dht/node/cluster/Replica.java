package dht.node.cluster;

import dht.storage.Entry;
import dht.storage.ReadBudget;
import java.util.concurrent.CompletableFuture;

/**
 * One replica of a key as the coordinator sees it: this node's store, or a peer over the internal
 * point protocol. Futures complete exceptionally when the replica failed or did not answer in time;
 * they never block the caller.
 */
public interface Replica {
    String url();

    /** The replica's newest version of the key (a value or a tombstone), or {@code null} if it has none. */
    CompletableFuture<Entry> read(byte[] key);

    /**
     * {@link #read(byte[])} with the value reserved in {@code budget} before this node copies it onto
     * its heap (see {@link ReadBudget}); a peer's value arrives over the network, so by default nothing is reserved.
     */
    default CompletableFuture<Entry> read(byte[] key, ReadBudget budget) {
        return read(key);
    }

    /** Applies a timestamped value or tombstone; the replica keeps the newer of it and what it has. */
    CompletableFuture<Void> write(Entry entry);

    /**
     * {@link #read(byte[], ReadBudget)} placed by membership version {@code placedBy}: a peer on a
     * newer version refuses it ({@link MembershipFence}); 0 sends none. By default the version is
     * not sent.
     */
    default CompletableFuture<Entry> read(byte[] key, ReadBudget budget, long placedBy) {
        return read(key, budget);
    }

    /** {@link #write(Entry)} placed by membership version {@code placedBy}, as above. */
    default CompletableFuture<Void> write(Entry entry, long placedBy) {
        return write(entry);
    }

    /**
     * Whether a call to this replica would fail now without being sent (a peer the failure
     * detector holds silent): a write that could not reach its quorum without it is refused before
     * anything is written.
     */
    default boolean knownDown() {
        return false;
    }
}
