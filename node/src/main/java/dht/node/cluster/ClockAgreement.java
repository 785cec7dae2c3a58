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
 * up (a black-box tester lost acknowledged 3/3 writes both ways). So while most of the peers it
 * heard from (each by its latest reading) show its clock off the same way, it coordinates no write
 * ({@link #offReason}); it still serves reads and stays a replica. With one peer heard that
 * disagrees, both refuse: no one can tell which clock is right.
 *
 * <p>A reading that showed the clock off counts however old it is, until a newer reading of that
 * peer replaces it: a clock does not come right by itself while its peers are out of reach (a
 * tester's node an hour behind, cut off for a minute, took writes again once such readings aged
 * out, and they were lost). A reading that agreed counts for {@link #WINDOW_NANOS} only: a peer
 * silent longer (down, gone) cannot vouch for a clock that may have changed since.
 */
public final class ClockAgreement {
    /** How long a peer's latest reading counts when it agreed: a peer silent longer (down, gone) is left out. */
    static final long WINDOW_NANOS = 60_000_000_000L;
    private static final int AHEAD = 0;
    private static final int BEHIND = 1;
    private static final int AGREES = 2;

    /** Per peer: what its latest clock reading showed ({@link #AHEAD}, {@link #BEHIND}, {@link #AGREES}) and when (nanoTime). */
    private final Map<String, long[]> seen = new ConcurrentHashMap<>();
    private final long maxOffsetMicros;
    /**
     * How many peers' latest readings show this clock off: {@link #offReason} runs on every client
     * write, and while none does there is nothing to count.
     */
    private final java.util.concurrent.atomic.AtomicInteger off = new java.util.concurrent.atomic.AtomicInteger();

    ClockAgreement(long maxOffsetMicros) {
        this.maxOffsetMicros = maxOffsetMicros;
    }

    /**
     * A peer's answer carried its clock; the call went out at {@code sentAt} and came back at
     * {@code receivedAt} (this node's physical clock); {@code nanoNow} dates the reading.
     */
    void heard(String peer, long peerClock, long sentAt, long receivedAt, long nanoNow) {
        if (peerClock > receivedAt + maxOffsetMicros) note(peer, AHEAD, nanoNow);
        else if (peerClock < sentAt - maxOffsetMicros) note(peer, BEHIND, nanoNow);
        else note(peer, AGREES, nanoNow);
    }

    /** A peer refused a write timestamp of this node as more than the max offset ahead of its clock. */
    void refusedMine(String peer, long nanoNow) {
        note(peer, BEHIND, nanoNow);
    }

    private void note(String peer, int what, long nanoNow) {
        long[] at = seen.computeIfAbsent(peer, p -> new long[] {AGREES, Long.MIN_VALUE});
        synchronized (at) {
            if (at[0] == AGREES && what != AGREES) off.incrementAndGet();
            if (at[0] != AGREES && what == AGREES) off.decrementAndGet();
            at[0] = what;
            at[1] = nanoNow;
        }
    }

    /** Whether any peer's clock reading has come, however old. */
    boolean heardAny() {
        return !seen.isEmpty();
    }

    /**
     * Why this node must not stamp a client's write now, or null: when more than half of the
     * {@code members} whose readings count (this node never is) showed its clock off the same way.
     * Ages are by {@link System#nanoTime}, not by the clock in doubt.
     */
    public String offReason(Iterable<String> members, long nanoNow) {
        if (off.get() == 0) return null;
        int heard = 0;
        int ahead = 0;
        int behind = 0;
        for (String m : members) {
            long[] at = seen.get(m);
            if (at == null) continue;
            synchronized (at) {
                long age = nanoNow - at[1];
                if (at[0] == AGREES && (age < 0 || age > WINDOW_NANOS)) continue;
                heard++;
                if (at[0] == AHEAD) ahead++;
                if (at[0] == BEHIND) behind++;
            }
        }
        if (2 * ahead > heard) {
            return "this node's clock is behind " + ahead + " of the " + heard + " peers it heard from by more than the max "
                    + "clock offset (" + maxOffsetMicros / 1000 + " ms): a write stamped here would lose to versions already "
                    + "stored; fix its clock (NTP)";
        }
        if (2 * behind > heard) {
            return "this node's clock is ahead of " + behind + " of the " + heard + " peers it heard from by more than the "
                    + "max clock offset (" + maxOffsetMicros / 1000 + " ms): a write stamped here would win over later ones; "
                    + "fix its clock (NTP)";
        }
        return null;
    }
}
