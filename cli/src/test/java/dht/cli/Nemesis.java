package dht.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A thread that, until stopped, injects a fault, holds it for a random while, heals it and rests
 * before the next: so that the cluster spends part of the run whole and part of it broken. What
 * it did is kept as a timeline. {@link #stop()} returns once the fault under way is healed.
 */
final class Nemesis {
    /**
     * Makes one fault, or several at once named "a, and b"; the first word of each is its kind,
     * for {@link #counts()}.
     */
    @FunctionalInterface
    interface Faults {
        Injected inject(Random random) throws Exception;
    }

    @FunctionalInterface
    interface Heal {
        void heal() throws Exception;
    }

    record Injected(String what, Heal heal) {}

    private final Faults faults;
    private final Random random;
    private final long holdMillis;
    private final long restMillis;
    private final List<String> timeline = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Integer> counts = Collections.synchronizedMap(new TreeMap<>());
    private final long origin = System.nanoTime();
    private volatile boolean stopping;
    private volatile Exception failure;
    private Thread thread;

    /** Each fault held between {@code holdMillis} and twice that, then a rest of {@code restMillis} up to twice that. */
    Nemesis(Faults faults, long seed, long holdMillis, long restMillis) {
        this.faults = faults;
        this.random = new Random(seed);
        this.holdMillis = holdMillis;
        this.restMillis = restMillis;
    }

    void start() {
        thread = Thread.ofPlatform().name("nemesis").start(this::run);
    }

    private void run() {
        try {
            while (!stopping) {
                pause(restMillis + random.nextLong(restMillis + 1));
                if (stopping) break;
                Injected fault = faults.inject(random);
                note(fault.what());
                for (String part : fault.what().split(", and ")) counts.merge(part.split(" ")[0], 1, Integer::sum);
                pause(holdMillis + random.nextLong(holdMillis + 1));
                fault.heal().heal();
                note("healed: " + fault.what());
            }
        } catch (Exception e) {
            failure = e;
            note("failed: " + e);
        }
    }

    /** Sleeps, but not past a stop. */
    private void pause(long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000;
        while (!stopping && System.nanoTime() < end) Thread.sleep(Math.min(50, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
    }

    private void note(String event) {
        timeline.add(String.format(Locale.ROOT, "%8.3f s  %s", (System.nanoTime() - origin) / 1e9, event));
    }

    /** Stops injecting, waits until the fault under way is healed, and rethrows what broke the nemesis itself. */
    void stop() throws Exception {
        stopping = true;
        thread.join();
        if (failure != null) throw new IllegalStateException("the nemesis failed; its timeline:\n" + timeline(), failure);
    }

    /** How many faults of each kind were injected. */
    Map<String, Integer> counts() {
        synchronized (counts) {
            return new TreeMap<>(counts);
        }
    }

    String timeline() {
        synchronized (timeline) {
            return String.join("\n", timeline);
        }
    }
}
