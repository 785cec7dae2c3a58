package dht.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one load test: opens the connections (fails fast if a target is unreachable), starts every
 * connection's schedule at one instant, prints a progress line each second, stops sending at the
 * end of the window, waits up to the timeout for answers in flight, and merges what each
 * connection measured.
 */
public final class LoadGenerator {
    private static final Logger log = LoggerFactory.getLogger(LoadGenerator.class);

    /** Told the number of requests answered so far, once a second (for fill's progress line). */
    public interface Progress {
        void update(long answered, double secondsSinceStart);
    }

    static final double ADAPTIVE_SPIN_MAX_RATE_PER_THREAD = 5000;
    /** The share of a generator thread's time that spinning for timer lateness may take. */
    static final double ADAPTIVE_SPIN_SHARE = 0.1;

    /**
     * How much of the drain (answers to the window's requests arriving after its end) the window
     * is stretched by: all of it when it is long (over 1 s and over 1% of the window), which a
     * server slower than the rate causes, as its backlog grows (divided by the window alone, the
     * answers drained would overstate the throughput); none when it is the last requests' ordinary
     * latency, which would only make a healthy run's figures wobble (a sweep step failing on one
     * slow final answer).
     */
    static long drainCounted(long windowNanos, long drainNanos) {
        return drainNanos > Math.max(1_000_000_000L, windowNanos / 100) ? drainNanos : 0;
    }

    /** Why a connection failed, in words: "connection refused" rather than Netty's annotated exception. */
    static String whyNotConnected(Throwable cause) {
        if (cause == null) return "timed out";
        String m = String.valueOf(cause.getMessage());
        if (cause instanceof java.net.ConnectException && m.toLowerCase(java.util.Locale.ROOT).contains("refused")) {
            return "connection refused";
        }
        return cause instanceof java.net.ConnectException ? m : cause.toString();
    }

    /**
     * How much timer lateness a send may spin off, at most: spinning to the intended time buys
     * precision with CPU, worth it while a loop has idle time between sends, harmful when it is
     * busy (its other connections wait) or when the generator shares the cores with the server,
     * whose CPU an uncapped spin takes. Capped at a tenth of the thread's interval between sends,
     * and off above {@link #ADAPTIVE_SPIN_MAX_RATE_PER_THREAD} a thread (docs/benchmarks.md,
     * "The generator's spinning").
     */
    static long maxAdaptiveSpinNanos(boolean openModel, double rate, int threads) {
        if (!openModel || rate <= 0 || rate / threads > ADAPTIVE_SPIN_MAX_RATE_PER_THREAD) return 0;
        return (long) (ADAPTIVE_SPIN_SHARE * 1e9 * threads / rate);
    }

    /** A generator thread's rate above which send timers are coalesced by default. */
    static final double TIMER_SLACK_MIN_RATE_PER_THREAD = 5000;
    static final long DEFAULT_TIMER_SLACK_NANOS = 100_000L;

    /**
     * The grid send timers are rounded up to (0: precise timers and spinning). With a timer,
     * wake-up and spin per send, a generator at a high constant rate costs far more CPU per request
     * than in closed loop, CPU it takes from a server on the same cores; on a grid the sends due
     * within one step go out in one wake-up (docs/benchmarks.md, "What 60,000 req/s costs two
     * cores"). Every request is still measured from its intended time, so the delay (up to the
     * slack, half of it on average) counts against the server, never for it; at rates where one
     * thread has time to spare, precision wins.
     */
    static long timerSlackNanos(LoadSpec spec) {
        if (!spec.openModel()) return 0;
        if (spec.timerSlackNanos() >= 0) return spec.timerSlackNanos();
        return spec.rate() / spec.loopThreads() > TIMER_SLACK_MIN_RATE_PER_THREAD ? DEFAULT_TIMER_SLACK_NANOS : 0;
    }

    private final LoadSpec spec;
    private final PrintStream progressOut;

    public LoadGenerator(LoadSpec spec, PrintStream progressOut) {
        this.spec = spec;
        this.progressOut = progressOut;
    }

    public RunResult run() throws InterruptedException {
        return run(null);
    }

    public RunResult run(Progress progress) throws InterruptedException {
        // Leak tracking samples 1 buffer in 128 with a stack trace: a cost on the hot path that a
        // load generator (its own process) does not need.
        io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        if (!epoll) {
            log.warn("native epoll unavailable ({}); using NIO", Epoll.unavailabilityCause().toString());
        }
        int threads = spec.loopThreads();
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, io);
        try {
            List<EventLoop> loops = new ArrayList<>();
            group.forEach(e -> loops.add((EventLoop) e));
            Bootstrap base = new Bootstrap()
                    .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000);
            long maxAdaptiveSpin = maxAdaptiveSpinNanos(spec.openModel(), spec.rate(), threads);
            long timerSlack = timerSlackNanos(spec);
            CountDownLatch finished = new CountDownLatch(spec.connections());
            Tickets tickets = new Tickets(spec.maxRequests());
            List<BenchConnection> conns = new ArrayList<>();
            List<ChannelFuture> connecting = new ArrayList<>();
            for (int i = 0; i < spec.connections(); i++) {
                EventLoop loop = loops.get(i % loops.size());
                Target t = spec.targets().get(i % spec.targets().size());
                BenchConnection c = new BenchConnection(i, t, loop, base, spec.requests(), tickets, spec.seed(),
                        spec.spinNanos(), maxAdaptiveSpin, timerSlack, spec.pipeline(), finished);
                conns.add(c);
                connecting.add(c.connect());
            }
            for (int i = 0; i < connecting.size(); i++) {
                ChannelFuture f = connecting.get(i);
                if (!f.await(10, TimeUnit.SECONDS) || !f.isSuccess()) {
                    Target t = spec.targets().get(i % spec.targets().size());
                    throw BenchException.atRunTime("cannot connect to " + t.url() + ": " + whyNotConnected(f.cause()));
                }
            }

            // Most of what the run keeps (connections, their histograms) now exists: a full
            // collection moves it to the old generation before the first send (the timelines still
            // grow as they fill). Every request intended during a pause of ours is charged for it,
            // so the generator's own pauses must be as short as they can be (docs/benchmarks.md,
            // "The generator's own pauses").
            System.gc();
            long start = System.nanoTime() + 20_000_000L;
            long measureFrom = start + spec.warmup().toNanos();
            long end = spec.duration() == null ? Long.MAX_VALUE : measureFrom + spec.duration().toNanos();
            double perConn = spec.openModel() ? spec.rate() / spec.connections() : 0;
            Instant startedAt = Instant.now();
            Instant windowOpensAt = startedAt.plusNanos(measureFrom - System.nanoTime());
            for (int i = 0; i < conns.size(); i++) {
                BenchConnection c = conns.get(i);
                long offset = spec.openModel() ? (long) (i * 1e9 / spec.rate()) : 0;
                c.loop().execute(() -> c.start(start + offset, perConn, measureFrom, end));
            }

            List<List<Double>> samples = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                samples.add(new ArrayList<>());
            }
            long[] lastByThread = new long[threads];
            long lastTotal = 0;
            long deadline = end == Long.MAX_VALUE ? Long.MAX_VALUE : end + spec.timeout().toNanos();
            long tick = start + 1_000_000_000L;
            boolean aborted = false;
            while (true) {
                long now = System.nanoTime();
                long waitNanos = Math.max(0, Math.min(tick, deadline) - now);
                if (finished.await(waitNanos, TimeUnit.NANOSECONDS)) {
                    break;
                }
                now = System.nanoTime();
                if (now >= deadline && !aborted) {
                    aborted = true;
                    for (BenchConnection c : conns) {
                        c.loop().execute(c::abort);
                    }
                    finished.await(5, TimeUnit.SECONDS);
                    break;
                }
                if (now >= tick) {
                    long total = 0;
                    long[] byThread = new long[threads];
                    for (int i = 0; i < conns.size(); i++) {
                        long n = conns.get(i).completedAll.get();
                        byThread[i % threads] += n;
                        total += n;
                    }
                    boolean measuring = tick > measureFrom && tick <= end;
                    for (int t = 0; t < threads; t++) {
                        if (measuring) {
                            samples.get(t).add((double) (byThread[t] - lastByThread[t]));
                        }
                        lastByThread[t] = byThread[t];
                    }
                    double secs = (tick - start) / 1e9;
                    if (progress != null) {
                        progress.update(total, secs);
                    } else if (spec.progress() && progressOut != null) {
                        progressOut.printf(java.util.Locale.ROOT, "  %5.0fs  %-8s %,12d req/s%n", secs,
                                tick <= measureFrom ? "warmup" : tick <= end ? "measure" : "drain",
                                total - lastTotal);
                    }
                    lastTotal = total;
                    tick += 1_000_000_000L;
                }
            }
            long finishedAt = System.nanoTime();

            ConnectionStats merged = new ConnectionStats();
            for (BenchConnection c : conns) {
                try {
                    ConnectionStats s = c.loop().submit(() -> c.stats).get(10, TimeUnit.SECONDS);
                    merged.merge(s);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    throw BenchException.atRunTime("could not collect results of a connection: " + e);
                }
            }
            double elapsed = end == Long.MAX_VALUE ? (finishedAt - measureFrom) / 1e9
                    : (spec.duration().toNanos() + drainCounted(spec.duration().toNanos(), merged.lastCompletedAt - end)) / 1e9;
            List<double[]> perThread = new ArrayList<>();
            for (List<Double> l : samples) {
                perThread.add(l.stream().mapToDouble(Double::doubleValue).toArray());
            }
            return new RunResult(spec, merged, perThread, elapsed, startedAt, windowOpensAt, epoll ? "epoll" : "nio");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

}
