package dht.node.cluster;

import java.util.List;

/**
 * Which keys a member sends in its stream to a joining node: those the joiner holds once the join
 * is done, each sent only by the old replica the joiner displaces from the key's replica set (the
 * node that will drop its copy), so that each key crosses the wire once, not once per replica.
 *
 * <p>Why the displaced replica: a write acknowledged by {@code ack} old replicas is either on it,
 * and then the joiner gets it, or on {@code ack} replicas that all stay; either way {@code ack} of
 * the new replicas hold it (Cassandra streams from the replica losing the range for the same
 * reason). Where a joiner displaces no one (fewer old replicas than the factor) every old replica
 * sends the key. Both sides compute this with the same membership version (the joiner names it in
 * its request), so the senders' selections together are every key the joiner gains.
 *
 * <p>When a sender is down for good mid-join, the joiner asks each other member for the keys
 * that one would have sent ({@code instead}): every other old replica of such a key sends it, not
 * one, as an acknowledged write is sure to be on {@code ack} of them only together with the
 * displaced one; the joiner keeps the newest. Keys every old replica sends anyway (no one
 * displaced) are in the member's own stream already, and not in this one.
 */
public final class JoinStreamKeys {
    private final String sender;
    private final String joiner;
    private final Placement before;
    private final Placement after;
    private final int replicationFactor;
    /** Null: the sender's own keys; else the member whose keys it sends in its stead. */
    private final String instead;
    private final long version;

    private JoinStreamKeys(Membership m, String sender, String joiner, String instead) {
        this.sender = sender;
        this.joiner = joiner;
        this.instead = instead;
        this.before = new Placement(m.members());
        this.after = new Placement(m.owners());
        this.replicationFactor = m.replicationFactor();
        this.version = m.version();
    }

    /** The membership version whose change this stream moves. */
    long version() {
        return version;
    }

    /** The joining node these keys are for. */
    public String joiner() {
        return joiner;
    }

    /** What {@code sender} sends to {@code joiner} under {@code m}, a membership in which {@code joiner} joins. */
    public static JoinStreamKeys of(Membership m, String sender, String joiner) {
        return insteadOf(m, sender, joiner, null);
    }

    /** What {@code sender} sends to {@code joiner} in the stead of {@code instead}, a member down for good (null: its own keys). */
    public static JoinStreamKeys insteadOf(Membership m, String sender, String joiner, String instead) {
        if (!m.joining().contains(joiner)) throw new IllegalArgumentException(joiner + " is not joining in version " + m.version());
        return new JoinStreamKeys(m, sender, joiner, instead);
    }

    /**
     * What this node sends to {@code joiner}, asked for under membership {@code version}.
     *
     * @throws MembershipChangeException 409 when this node is at another version, or {@code joiner}
     *         is not joining in it: the joiner retries once the versions agree
     */
    public static JoinStreamKeys forRequest(MembershipState state, String joiner, long version)
            throws MembershipChangeException {
        return forRequest(state, joiner, version, null);
    }

    /**
     * As {@link #forRequest(MembershipState, String, long)}, in the stead of {@code instead} when
     * not null.
     *
     * @throws MembershipChangeException 409 also when {@code instead} is this node or no member
     */
    public static JoinStreamKeys forRequest(MembershipState state, String joiner, long version, String instead)
            throws MembershipChangeException {
        Membership m = state.current();
        if (m.version() != version) {
            throw new MembershipChangeException(409, state.self() + " is at membership version " + m.version()
                    + ", not " + version);
        }
        if (!m.joining().contains(joiner)) {
            throw new MembershipChangeException(409, joiner + " is not joining in membership version " + version);
        }
        if (instead != null && (instead.equals(state.self()) || !m.members().contains(instead))) {
            throw new MembershipChangeException(409, instead + " is not another member of " + state.self()
                    + "'s membership version " + version);
        }
        return new JoinStreamKeys(m, state.self(), joiner, instead);
    }

    /** Whether the sender sends version {@code e} to the joiner: by its key and the copies its write asked for. */
    public boolean sends(dht.storage.Entry e) {
        return sends(e.key(), Topology.copies(e, replicationFactor));
    }

    /** Whether the sender sends {@code key}'s version to the joiner, for a version kept on the replication factor's copies. */
    public boolean sends(byte[] key) {
        return sends(key, replicationFactor);
    }

    private boolean sends(byte[] key, int copies) {
        List<String> next = after.replicas(key, copies);
        if (!next.contains(joiner)) return false;
        List<String> old = before.replicas(key, copies);
        if (!old.contains(sender)) return false;
        if (instead != null) return old.contains(instead) && !next.contains(instead); // it would have sent it alone
        if (!next.contains(sender)) return true; // the sender is displaced: it hands its copy over
        for (String o : old) {
            if (!next.contains(o)) return false; // another old replica is displaced and sends it
        }
        return true; // no one displaced: every old replica sends
    }
}
