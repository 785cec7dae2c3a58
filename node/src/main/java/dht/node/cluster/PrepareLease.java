package dht.node.cluster;

/**
 * The membership change this node has prepared (phase one of {@link MembershipChanges}) and until
 * when: while it holds, a prepare of another change is refused, so two changes cannot both
 * prepare here over one version.
 *
 * <p>It ends at its commit or abort, and otherwise no later than {@link #LEASE_MILLIS} after it
 * was taken (its coordinator may have died between the phases). It also ends, because it can no
 * longer protect anything, when
 * <ul>
 *   <li>this node is no longer at the version it was prepared over: that change can only commit
 *       as the version after it, which this node has now, taken from another change;</li>
 *   <li>the same coordinator prepares another change: a coordinator runs one change at a time
 *       ({@code MembershipChanges#change}), so its next one means the one held here is over. That
 *       happens when this node did not answer in time (frozen, slow) and the prepare arrived after
 *       the coordinator had given up and aborted the others.</li>
 * </ul>
 * A change's id is its coordinator's URL, a slash and a part without slashes, twice
 * ({@link MembershipChanges}); an id of another shape is its own coordinator. Guarded by this.
 */
final class PrepareLease {
    static final long LEASE_MILLIS = 30_000;

    private String id;
    private long over;
    private long until;

    /**
     * Takes the lease for change {@code newId} over version {@code version}, at {@code now}
     * (epoch ms), unless another change holds it.
     *
     * @param self this node's URL, for the refusal
     */
    synchronized void take(String newId, long version, long now, String self) throws MembershipChangeException {
        if (id != null && !id.equals(newId) && now < until && over == version
                && !coordinator(id).equals(coordinator(newId))) {
            throw new MembershipChangeException(409, self + " has prepared another membership change (coordinated by "
                    + coordinator(id) + ") for up to " + Math.ceilDiv(until - now, 1000) + " s more; retry then");
        }
        id = newId;
        over = version;
        until = now + LEASE_MILLIS;
    }

    /** Ends the lease if {@code changeId} holds it (its commit or abort); another change's stays. */
    synchronized void end(String changeId) {
        if (changeId.equals(id)) id = null;
    }

    /** The coordinator part of a change's id: up to the slash before its last slash. */
    static String coordinator(String changeId) {
        int last = changeId.lastIndexOf('/');
        int before = last <= 0 ? -1 : changeId.lastIndexOf('/', last - 1);
        return before <= 0 ? changeId : changeId.substring(0, before);
    }
}
