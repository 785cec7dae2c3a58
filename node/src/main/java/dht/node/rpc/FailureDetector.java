package dht.node.rpc;

import io.netty.channel.ConnectTimeoutException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this node believes about one peer: up, down because it refuses connections, or down because
 * it is silent; updated by the outcome of every call to it and by probes.
 *
 * <p>Invariants:
 * <ul>
 * <li>A peer is marked down at once when a connection to it is refused, or after
 *     {@value #FAILURES_TO_DOWN} consecutive failures without an HTTP answer when it has given no
 *     answer at all for a whole timeout (so a loaded peer that answers late is not cut off).</li>
 * <li>A peer that refuses connections is still tried (a refusal costs no timeout, and the first
 *     request after its restart succeeds); to a silent one requests fail immediately, and only the
 *     background probe (one at a time, every {@link #PROBE_INTERVAL}) waits for it.</li>
 * <li>A 401 or 403 (every request to it is internal) marks it down at once: it does not share this
 *     node's cluster secret, so it is no replica. So does an answer that is not a member's (without
 *     the secret's proof or, with no secret, a node's mark: {@link MemberAnswer}). Requests still go
 *     to it (a refusal costs one round trip), and the first other answer marks it up again.</li>
 * <li>Any other HTTP answer marks the peer up again (a thawed peer answers the pending probe). An up peer
 *     that has answered nothing for {@link #IDLE_PROBE_AFTER} is probed too, so a peer that dies or
 *     freezes while no request goes to it is still found down.</li>
 * </ul>
 */
final class FailureDetector {
    private static final Logger log = LoggerFactory.getLogger(FailureDetector.class);

    static final int FAILURES_TO_DOWN = 2;
    /** Short, so a thawed or recovered peer is back within about this long; one probe in flight per peer. */
    static final Duration PROBE_INTERVAL = Duration.ofMillis(100);
    /** An up peer silent this long (no traffic) is asked for its status, so its death is noticed without traffic. */
    static final Duration IDLE_PROBE_AFTER = Duration.ofSeconds(1);

    /** Whether a call may go to the peer, and whether it is the probe's trial of a silent peer. */
    enum Admission { SEND, TRIAL, REFUSE }

    private final String url;
    /** A peer that has answered nothing for this long is silent. */
    private final Duration timeout;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    /** When the peer last gave any HTTP answer: a slow peer under load still answers now and then. */
    private volatile long lastAnswerNanos = System.nanoTime();
    private final AtomicBoolean trialInFlight = new AtomicBoolean();
    /** A status request to an up but quiet peer is out: one at a time. */
    private final AtomicBoolean idleProbeInFlight = new AtomicBoolean();
    private volatile boolean up = true;
    /**
     * Down because connections were refused (nothing listens): trying again costs only a refused
     * connect, never a timeout, so requests still go out and the first one after a restart
     * succeeds. A peer down because it is silent (frozen, unreachable) is reached only by the probe.
     */
    private volatile boolean downRefused;

    FailureDetector(String url, Duration timeout) {
        this.url = url;
        this.timeout = timeout;
    }

    /** Is the peer believed up (it answered recently, or has not failed yet)? */
    boolean isUp() {
        return up;
    }

    /** Down and silent: nothing but the probe goes to it. */
    boolean isSilent() {
        return !up && !downRefused;
    }

    /**
     * May a call go out now? To a silent peer only a probe, one at a time: a client request never
     * pays its timeout. A {@link Admission#TRIAL} must be reported back as such.
     */
    Admission admit(boolean probe) {
        if (!isSilent()) return Admission.SEND;
        return probe && trialInFlight.compareAndSet(false, true) ? Admission.TRIAL : Admission.REFUSE;
    }

    /**
     * Asks for the peer's status when it is down and no probe is out, or when it is up but has
     * answered nothing for {@link #IDLE_PROBE_AFTER}: without traffic a peer that died or froze
     * would otherwise be shown up (in {@code /v0/status}, to hinted handoff) until the next request
     * to it failed.
     */
    void probe(long nowNanos, Supplier<CompletableFuture<?>> askStatus) {
        if (!up) {
            if (!trialInFlight.get()) askStatus.get();
        } else if (nowNanos - lastAnswerNanos > IDLE_PROBE_AFTER.toNanos() && idleProbeInFlight.compareAndSet(false, true)) {
            askStatus.get().whenComplete((r, e) -> idleProbeInFlight.set(false));
        }
    }

    /** The peer gave an HTTP answer (any status). */
    void succeeded(boolean trial) {
        lastAnswerNanos = System.nanoTime();
        consecutiveFailures.set(0);
        if (trial) trialInFlight.set(false);
        if (!up) {
            up = true;
            log.info("peer {} is up", url);
        }
    }

    /** The peer answered, but as no member: {@code why} it is none, for the log. */
    void rejected(boolean trial, String why) {
        lastAnswerNanos = System.nanoTime();
        consecutiveFailures.incrementAndGet();
        if (trial) trialInFlight.set(false);
        downRefused = true;
        if (up) {
            up = false;
            log.warn("peer {} is down: {}", url, why);
        }
    }

    /** A call failed without an HTTP answer: refused, timed out, or cut. */
    void failed(boolean trial, Throwable cause) {
        if (trial) trialInFlight.set(false);
        int n = consecutiveFailures.incrementAndGet();
        // Refused: nobody listens. Otherwise (timeouts, cut connections) only when the peer has
        // not answered anything for a whole timeout: a loaded but live peer that answers some
        // requests late must not be cut off, a frozen one answers nothing at all.
        boolean silent = System.nanoTime() - lastAnswerNanos > timeout.toNanos();
        boolean refused = refused(cause);
        if (!up && refused) downRefused = true;
        // Down by refusal, then silent (it came back and froze before it answered): probe only,
        // or every call would wait out the timeout (as a peer refused at a node's start and frozen after).
        if (!up && downRefused && !refused && n >= FAILURES_TO_DOWN && silent) {
            downRefused = false;
            log.warn("peer {} is down and silent after {} failure(s): {}", url, n, cause.getMessage());
        }
        if (up && (refused || (n >= FAILURES_TO_DOWN && silent))) {
            downRefused = refused;
            up = false;
            // The reason in words: Netty's annotated exception repeats the peer's address and errno.
            log.warn("peer {} is down after {} failure(s): {}", url, n, refused ? "connection refused" : cause.getMessage());
        }
    }

    private static boolean refused(Throwable cause) {
        Throwable c = cause instanceof PeerUnavailableException && cause.getCause() != null ? cause.getCause() : cause;
        return c instanceof ConnectException && !(c instanceof ConnectTimeoutException);
    }
}
