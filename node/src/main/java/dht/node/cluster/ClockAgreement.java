package dht.node.cluster;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether this node's clock agrees with its peers', from what their answers show: a peer's clock
 * ({@code X-Dht-Clock}) more than the max offset ahead of this node's physical clock when the
 * answer came, or more than the max offset behind it when the call went out (so a slow answer
 * never looks like a clock behind), or a peer refusing this node's write timestamp as too far ahead.
 *
 * <p>Why: the max offset keeps a peer from pushing this node's clock, but a node whose own clock is
 * off still stamps its clients' writes by it. Hours behind, its acknowledged writes lose to every
 * version already stored; ahead, they win over writes made after them once its peers' clocks catch
 * up (a black-box tester lost acknowledged 3/3 writes both ways). So while a majority of its peers
 * showed, within {@link #WINDOW_MICROS}, that its clock is off the same way, it coordinates no
 * write ({@link #offReason}); it still serves reads and stays a replica. With one peer that
 * disagrees, both refuse: no one can tell which clock is right.
 */
public final class ClockAgreement {
    /** How long a peer's evidence counts. */
    static final long WINDOW_MICROS = 10_000_000;

    /** Per peer: when (physical micros) it last showed a clock ahead of this one's, and behind it. */
    private final Map<String, long[]> seen = new ConcurrentHashMap<>();
    private final long maxOffsetMicros;

    ClockAgreement(long maxOffsetMicros) {
        this.maxOffsetMicros = maxOffsetMicros;
    }

    /** A peer's answer carried its clock; the call went out at {@code sentAt} and came back at {@code receivedAt}. */
    void heard(String peer, long peerClock, long sentAt, long receivedAt) {
        if (peerClock > receivedAt + maxOffsetMicros) note(peer, 0, receivedAt);
        else if (peerClock < sentAt - maxOffsetMicros) note(peer, 1, receivedAt);
        else forget(peer);
    }

    /** A peer refused a write timestamp of this node as more than the max offset ahead of its clock. */
    void refusedMine(String peer, long now) {
        note(peer, 1, now);
    }

    private void note(String peer, int which, long now) {
        long[] at = seen.computeIfAbsent(peer, p -> new long[] {Long.MIN_VALUE, Long.MIN_VALUE});
        synchronized (at) {
            at[which] = now;
            at[1 - which] = Long.MIN_VALUE;
        }
    }

    private void forget(String peer) {
        long[] at = seen.get(peer);
        if (at == null) return;
        synchronized (at) {
            at[0] = Long.MIN_VALUE;
            at[1] = Long.MIN_VALUE;
        }
    }

    /**
     * Why this node must not stamp a client's write now, or null: when more than half of its
     * {@code peers} (other members) showed its clock off the same way within the window.
     */
    public String offReason(int peers, Iterable<String> members, long now) {
        if (peers <= 0) return null;
        int ahead = 0;
        int behind = 0;
        for (String m : members) {
            long[] at = seen.get(m);
            if (at == null) continue;
            synchronized (at) {
                if (at[0] != Long.MIN_VALUE && now - at[0] <= WINDOW_MICROS) ahead++;
                if (at[1] != Long.MIN_VALUE && now - at[1] <= WINDOW_MICROS) behind++;
            }
        }
        if (2 * ahead > peers) {
            return "this node's clock is behind " + ahead + " of its " + peers + " peers' by more than the max clock offset ("
                    + maxOffsetMicros / 1000 + " ms): a write stamped here would lose to versions already stored; fix its clock (NTP)";
        }
        if (2 * behind > peers) {
            return "this node's clock is ahead of " + behind + " of its " + peers + " peers' by more than the max clock offset ("
                    + maxOffsetMicros / 1000 + " ms): a write stamped here would win over later ones; fix its clock (NTP)";
        }
        return null;
    }
}
