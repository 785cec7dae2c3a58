package dht.node;

import dht.node.cluster.Membership;
import dht.node.cluster.MembershipChangeException;
import dht.node.rpc.MembershipClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A joining node's calls to the member it joins through ({@code --join}): that member's membership,
 * the join itself, and, when the join's answer did not come, what the member agreed after all.
 *
 * <p>Invariant: a start is refused only when the join was refused or the member has moved on
 * without it. A join whose outcome is not known is reported as such, and the mark that this
 * directory asked ({@code DATA/join-asked}) stays, so the same command again goes on with a join
 * the members agreed late. (A member with another member frozen waits a membership call's timeout
 * for that one's prepare; a joiner that gave up at the same moment left the members with a joiner
 * that was not there, and every later change refused until it was removed.)
 */
final class JoinThrough {
    /** The join call: the member prepares every other member, one after the other, each up to a call's timeout. */
    static final Duration JOIN_CALL_TIMEOUT = Duration.ofSeconds(60);
    /** After a join call with no answer: how long the member is asked whether it agreed. */
    static final Duration OUTCOME_WAIT = Duration.ofSeconds(60);

    private final NodeConfig config;
    private final MembershipClient calls;
    private final MembershipClient joinCalls;

    JoinThrough(NodeConfig config, MembershipClient calls, MembershipClient joinCalls) {
        this.config = config;
        this.calls = calls;
        this.joinCalls = joinCalls;
    }

    /** The membership of the member {@code config.join()}, as it answers {@code op=get}. */
    Membership membership() throws JoinRefusedException {
        try {
            return answerOf(calls.call(config.join(), "get", "", new byte[0]));
        } catch (MembershipChangeException e) {
            throw new JoinRefusedException("cannot join through " + config.join() + ": " + e.getMessage());
        }
    }

    /** The membership in the member's answer {@code body}; refused when it is none. */
    private Membership answerOf(byte[] body) throws JoinRefusedException {
        try {
            return Membership.decode(new String(body, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new JoinRefusedException("cannot join through " + config.join() + ": its answer is not a membership ("
                    + e.getMessage() + "); is it a dht node?");
        }
    }

    /** Refuses to join {@code m} when it lists this node as a member or a change is under way (the member checks both again). */
    void checkJoinable(Membership m) throws JoinRefusedException {
        if (m.all().contains(config.self())) {
            throw new JoinRefusedException("cannot join through " + config.join() + ": " + config.self() + " is already a member");
        }
        if (m.changing()) {
            throw new JoinRefusedException("cannot join through " + config.join() + ": another change is in progress (joining "
                    + m.joining() + ", leaving " + m.leaving() + "); retry once it is done");
        }
    }

    /**
     * Asks the member to add this node, which already serves on the version the join agrees on,
     * from version {@code expect}; returns its answer, the membership with this node joining.
     *
     * @throws MembershipChangeException as the member refused, or 503 when it did not answer
     */
    Membership join(long expect) throws JoinRefusedException, MembershipChangeException {
        Membership m = answerOf(joinCalls.call(config.join(), "join",
                "url=" + URLEncoder.encode(config.self(), StandardCharsets.UTF_8) + "&expect=" + expect, new byte[0]));
        if (!m.joining().contains(config.self())) {
            throw new JoinRefusedException(config.join() + " answered a membership in which " + config.self() + " is not joining");
        }
        return m;
    }

    /**
     * What the member agreed after a join call that failed with {@code cause} and may have been
     * agreed all the same (no answer, or one lost): asked once a second for at most {@link
     * #OUTCOME_WAIT}. Returns the member's version when it holds this join ({@code started}, with
     * whatever laggards it recorded); null when it has moved past {@code from} without it (nothing
     * changed for this node).
     *
     * @throws JoinRefusedException saying the outcome is not known, when it still is not
     */
    Membership outcome(Membership started, long from, MembershipChangeException cause) throws JoinRefusedException {
        long deadline = System.nanoTime() + OUTCOME_WAIT.toNanos();
        while (true) {
            try {
                Membership theirs = membership();
                if (sameJoin(theirs, started)) return theirs;
                if (theirs.version() != from) return null;
            } catch (JoinRefusedException e) {
                // no answer now either: ask again
            }
            if (System.nanoTime() > deadline) break;
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new JoinRefusedException("cannot join through " + config.join() + ": " + cause.getMessage()
                + "; whether the members agreed to the join is not known (" + config.join() + " still holds membership"
                + " version " + from + " or does not answer): start this node again with the same command to go on with"
                + " the join if they did; if this node is not coming back, bin/dht remove --url " + config.self()
                + " calls it off");
    }

    /** Whether {@code agreed} is the version {@code started} stands for, with the laggards its agreement recorded. */
    static boolean sameJoin(Membership agreed, Membership started) {
        return agreed.equals(started.withLaggards(agreed.laggards()));
    }
}
