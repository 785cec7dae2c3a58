package dht.node.cluster;

/**
 * A membership change refused or failed, with the HTTP status that says why: 400 bad input, 404 not
 * a member, 409 a conflict (a second join, a change already in progress, too few members left, a
 * live node to remove), 503 a node the change needs did not answer.
 *
 * <p>{@link #outcome()} says what the failure left: most refusals change nothing; a leave that was
 * agreed and then failed moving its data leaves the node leaving (repeat it to go on); a caller
 * that got no answer cannot tell.
 */
public final class MembershipChangeException extends Exception {
    /** What a failed change left behind. */
    public enum Outcome {
        NOTHING_CHANGED,
        /** Agreed and started, not finished: the same operation again goes on with it. */
        UNDER_WAY,
        /** The node did not answer: it may have changed or not. */
        UNKNOWN
    }

    private final int status;
    private final Outcome outcome;
    private final boolean answered;

    /**
     * A change names a URL the membership does not list: the refusal names the members, so that a
     * call sent through a node of another cluster (a standalone node as {@code --via}) says which
     * membership it was checked against.
     */
    static MembershipChangeException notAMember(String url, java.util.List<String> members) {
        return new MembershipChangeException(404, url + " is not a member (the members are " + String.join(", ", members) + ")");
    }

    public MembershipChangeException(int status, String message) {
        this(status, message, Outcome.NOTHING_CHANGED);
    }

    public MembershipChangeException(int status, String message, Outcome outcome) {
        this(status, message, outcome, true);
    }

    private MembershipChangeException(int status, String message, Outcome outcome, boolean answered) {
        super(message, null, false, false);
        this.status = status;
        this.outcome = outcome;
        this.answered = answered;
    }

    /**
     * {@code e} as the caller of a change should take it from {@code member}: a 401 or 403 says the
     * member does not take this node's proof of the cluster secret (it runs with another secret, or
     * its clock is more than 30 s off), so for the change it is a member that does not answer, as
     * it would be for every other call; any other refusal is {@code e} as it is.
     */
    static MembershipChangeException unansweredIfProofRefused(String member, MembershipChangeException e) {
        if (e.status != 401 && e.status != 403) return e;
        return new MembershipChangeException(503, member + " does not take this node's proof of the cluster secret ("
                + e.getMessage() + "); taken as a member that does not answer", Outcome.NOTHING_CHANGED, false);
    }

    /** The node asked gave no HTTP answer at all (no connection, a timeout): status 503, as a node that is down. */
    public static MembershipChangeException noAnswer(String message, Outcome outcome) {
        return new MembershipChangeException(503, message, outcome, false);
    }

    /** Whether the node asked answered with {@link #status()}; false when it gave no HTTP answer at all. */
    public boolean answered() {
        return answered;
    }

    public int status() {
        return status;
    }

    public Outcome outcome() {
        return outcome;
    }
}
