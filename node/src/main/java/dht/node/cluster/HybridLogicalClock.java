package dht.node.cluster;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Write timestamps: microseconds since the epoch, with the logical counter folded in as +1 steps.
 *
 * <p>Invariants: {@link #next()} is strictly greater than every value it returned before and than
 * every value {@link #observe(long, String)} accepted before it; it never falls behind the physical
 * clock, and it never wraps: at {@code Long.MAX_VALUE} it refuses to issue rather than return a
 * lower value. A timestamp more than {@code maxOffset} ahead of this node's physical clock is
 * refused, not observed, so one bad peer or request cannot push the clock (and every write after
 * it) into the future. So two writes one after the other through any nodes whose clocks agree to
 * within the time between them are ordered, and a node that has accepted a peer's timestamp stamps
 * everything after it higher. See docs/cluster.md.
 */
public final class HybridLogicalClock {
    private static final Logger log = LoggerFactory.getLogger(HybridLogicalClock.class);
    public static final Duration DEFAULT_MAX_OFFSET = Duration.ofMillis(500);
    /** How long a refusal keeps {@link #behindPeersMillis()} set, and the least time between two log lines. */
    private static final long REPORT_MICROS = 10_000_000;

    private final AtomicLong last = new AtomicLong();
    private final LongSupplier physicalMicros;
    private final long maxOffsetMicros;
    private final LongAdder refused = new LongAdder();
    /** By how much the latest refused timestamp led physical time, and when (physical micros). */
    private volatile long lastLeadMicros;
    private volatile long lastRefusedAt = Long.MIN_VALUE;
    private final AtomicLong lastLoggedAt = new AtomicLong(Long.MIN_VALUE);
    private final LongAdder unlogged = new LongAdder();
    private final ClockAgreement agreement;
    /**
     * The newest version in this node's store at start, when it was beyond the max offset of
     * physical time ({@link #startFrom}); {@link Long#MIN_VALUE} once physical time caught up, or
     * if it never was.
     */
    private volatile long storedAhead = Long.MIN_VALUE;

    public HybridLogicalClock() {
        this(systemMicros(), DEFAULT_MAX_OFFSET);
    }

    public HybridLogicalClock(Duration maxOffset) {
        this(systemMicros(), maxOffset);
    }

    public HybridLogicalClock(LongSupplier physicalMicros) {
        this(physicalMicros, DEFAULT_MAX_OFFSET);
    }

    public HybridLogicalClock(LongSupplier physicalMicros, Duration maxOffset) {
        if (maxOffset.isNegative()) throw new IllegalArgumentException("max clock offset must not be negative: " + maxOffset);
        this.physicalMicros = physicalMicros;
        this.maxOffsetMicros = saturatedMicros(maxOffset);
        this.agreement = new ClockAgreement(maxOffsetMicros);
    }

    /** This node's physical clock, microseconds since the epoch. */
    public long physicalNow() {
        return physicalMicros.getAsLong();
    }

    /**
     * A peer's clock, from its answer to a call sent at {@code sentAt} ({@link #physicalNow()}):
     * observed as {@link #observe(long, String)} does, and taken as evidence of whether the clocks agree.
     */
    public void peerClock(long peerClock, String peer, long sentAt) {
        observe(peerClock, peer);
        agreement.heard(peer, peerClock, sentAt, physicalMicros.getAsLong(), System.nanoTime());
    }

    /** {@code peer} refused a write timestamp of this node as too far ahead of its clock. */
    public void refusedByPeer(String peer) {
        agreement.refusedMine(peer, System.nanoTime());
    }

    /** Whether any peer's clock has been heard since this node started ({@link ClockAgreement}). */
    public boolean heardAnyPeer() {
        return agreement.heardAny();
    }

    /**
     * Takes the newest timestamp in this node's store at start ({@link Long#MIN_VALUE}: none).
     * Within the max offset of physical time it is observed, so every write stamped here is later
     * than every version stored. Beyond it, this node's clock went back since that version was
     * stamped (it accepted none that far ahead): a write stamped now would lose to it and to the
     * writes made around it, so {@link #offReason} refuses client writes until physical time is
     * within the max offset of it. Peers cannot vouch otherwise: all of them may be down (a
     * tester's node restarted an hour behind, alone, acknowledged a write that was lost).
     */
    public void startFrom(long newestStored) {
        if (newestStored == Long.MIN_VALUE) return;
        if (acceptable(newestStored)) {
            observe(newestStored, "this node's store");
            return;
        }
        storedAhead = newestStored;
        log.warn("this node's clock is {} ms behind the newest version in its store: it coordinates no client write "
                + "until its clock is within the max offset ({} ms) of it; fix its clock (NTP)",
                (newestStored - physicalMicros.getAsLong()) / 1_000, maxOffsetMillis());
    }

    /** Why this node must not stamp a client's write now ({@link ClockAgreement}, {@link #startFrom}), or null. */
    public String offReason(java.util.Collection<String> members) {
        long stored = storedAhead;
        if (stored != Long.MIN_VALUE) {
            if (!acceptable(stored)) {
                return "this node's clock is " + (stored - physicalMicros.getAsLong()) / 1_000 + " ms behind the newest "
                        + "version in its store, more than the max clock offset (" + maxOffsetMillis() + " ms): a write "
                        + "stamped here would lose to versions already stored; fix its clock (NTP)";
            }
            observe(stored, "this node's store");
            storedAhead = Long.MIN_VALUE;
        }
        return agreement.offReason(members, System.nanoTime());
    }

    public static LongSupplier systemMicros() {
        Clock clock = Clock.systemUTC();
        return () -> {
            Instant now = clock.instant();
            return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
        };
    }

    /**
     * A timestamp for a new write: max(physical now, last + 1).
     *
     * @throws IllegalStateException when the clock stands at {@code Long.MAX_VALUE}: no higher
     *         timestamp exists, and a lower one would order the write before earlier ones
     */
    public long next() {
        long physical = physicalMicros.getAsLong();
        long prev;
        long next;
        do {
            prev = last.get();
            if (prev == Long.MAX_VALUE) throw new IllegalStateException("the clock is at its maximum: no later timestamp exists");
            next = Math.max(physical, prev + 1);
        } while (!last.compareAndSet(prev, next));
        return next;
    }

    /** {@link #observe(long, String)} from an unnamed source. */
    public boolean observe(long timestamp) {
        return observe(timestamp, "a peer");
    }

    /**
     * Takes note of a timestamp seen from a peer ({@code source}, for the log), so that every later
     * {@link #next()} is above it; unless it is more than the max offset ahead of physical time:
     * then the clock does not move, the refusal is counted and logged (one line per 10 s), and
     * this returns false, for the caller to refuse whatever carried it.
     */
    public boolean observe(long timestamp, String source) {
        long physical = physicalMicros.getAsLong();
        if (timestamp > saturatedAdd(physical, maxOffsetMicros)) {
            refuse(timestamp, physical, source);
            return false;
        }
        long prev;
        while (timestamp > (prev = last.get())) {
            if (last.compareAndSet(prev, timestamp)) break;
        }
        return true;
    }

    /** Whether {@code timestamp} is within the max offset of physical time (what {@link #observe} accepts). */
    public boolean acceptable(long timestamp) {
        return timestamp <= saturatedAdd(physicalMicros.getAsLong(), maxOffsetMicros);
    }

    /** The exception for a timestamp {@link #observe} refused. */
    public TimestampRefusedException refusal(long timestamp) {
        long physical = physicalMicros.getAsLong();
        long lead = timestamp - physical;
        if (lead < 0) lead = physical < 0 ? Long.MAX_VALUE : 0; // overflowed, or physical time has caught up since
        return new TimestampRefusedException(timestamp, lead / 1_000, maxOffsetMillis());
    }

    private void refuse(long timestamp, long physical, String source) {
        refused.increment();
        long lead = timestamp - physical;
        if (lead < 0) lead = Long.MAX_VALUE; // overflowed: a physical clock before the epoch
        lastLeadMicros = lead;
        lastRefusedAt = physical;
        long logged = lastLoggedAt.get();
        if (logged != Long.MIN_VALUE && physical - logged < REPORT_MICROS) {
            unlogged.increment();
            return;
        }
        if (!lastLoggedAt.compareAndSet(logged, physical)) {
            unlogged.increment();
            return;
        }
        long others = unlogged.sumThenReset();
        log.warn("refused timestamp {} from {}: {} ms ahead of this node's clock, more than the max offset of {} ms "
                        + "(this node's clock is behind its peers', or theirs ahead){}", timestamp, source, lead / 1_000,
                maxOffsetMicros / 1_000, others == 0 ? "" : "; " + others + " more refused since the last such line");
    }

    /** Timestamps refused since start. */
    public long refused() {
        return refused.sum();
    }

    /**
     * How far ahead of this node's physical clock the latest refused timestamp was, in milliseconds,
     * if one was refused in the last 10 seconds; else 0. Set on one node alone: its clock is behind
     * its peers'; set on all but one: that one's clock is ahead.
     */
    public long behindPeersMillis() {
        long at = lastRefusedAt;
        if (at == Long.MIN_VALUE || physicalMicros.getAsLong() - at > REPORT_MICROS) return 0;
        return lastLeadMicros / 1_000;
    }

    /** The largest lead over physical time accepted from a peer, in milliseconds. */
    public long maxOffsetMillis() {
        return maxOffsetMicros / 1_000;
    }

    /**
     * The wall-clock time a timestamp stands for, in epoch milliseconds (for the storage engine's
     * tombstone grace period: {@code StoreOptions.timestampMillis}). Timestamps are microseconds.
     */
    public static long toEpochMillis(long timestamp) {
        return timestamp / 1_000;
    }

    /** The highest timestamp issued or observed so far. */
    public long current() {
        return last.get();
    }

    /**
     * This clock's reading now, without issuing anything: the larger of physical time and the
     * highest timestamp issued or observed (what {@link #next()} would pass). What a node tells
     * its peers, so that an idle node's clock does not read as one that fell behind.
     */
    public long reading() {
        return Math.max(physicalMicros.getAsLong(), last.get());
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    private static long saturatedMicros(Duration d) {
        try {
            return Math.multiplyExact(d.toMillis(), 1_000L);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
