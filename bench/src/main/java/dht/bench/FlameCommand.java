package dht.bench;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code dht bench flame FILE.html ...}: what a flame graph says, as text. */
@Command(name = "flame", mixinStandardHelpOptions = true,
        description = {"Read async-profiler HTML flame graphs (what --profile and /admin/profile save) as text: "
                + "where the samples went by category (kernel scheduler and futex waits and wake-ups, kernel network, "
                + "JIT, GC, storage engine, HTTP codec, Netty, node, JDK; meaningful for cpu profiles) and the frames "
                + "with the most self samples; in a graph taken by thread, each thread's samples."})
public final class FlameCommand implements Callable<Integer> {
    /**
     * Below this many samples the shares are mostly noise, whatever was sampled (an idle node's CPU
     * profile: a few dozen in 10 s).
     */
    static final int FEW_SAMPLES = 500;

    @Parameters(arity = "1..*", paramLabel = "FILE.html", description = "Flame graphs.")
    List<Path> files;

    @Option(names = "--top", defaultValue = "20", description = "Self frames to list (default: ${DEFAULT-VALUE}).")
    int top;

    @Option(names = "--callers", paramLabel = "FRAME",
            description = "Also list this frame's self samples by the Java frames above it (the 15 largest), e.g. finish_task_switch.isra.0.")
    String callers;

    @Option(names = "--depth", defaultValue = "3", description = "Java frames shown per --callers chain (default: ${DEFAULT-VALUE}).")
    int depth;

    @Option(names = "--threads", defaultValue = "15", paramLabel = "N",
            description = "In a graph taken by thread (/admin/profile?threads=true), the N threads with the most samples "
                    + "not in a wait (futex, epoll, sleep), each with its top frames outside waits (default: ${DEFAULT-VALUE}).")
    int threads;

    @Override
    public Integer call() {
        int status = 0;
        for (Path f : files) {
            FlameGraphSummary.Summary s;
            boolean cpu;
            boolean lock;
            boolean empty;
            try {
                String html = Files.readString(f);
                cpu = html.contains("<h1>CPU profile</h1>");
                lock = html.contains("<h1>Lock profile</h1>");
                empty = FlameGraphSummary.isEmptyProfile(html);
                s = FlameGraphSummary.parse(html, top, callers, depth);
            } catch (IOException e) {
                System.err.println("bench flame: cannot read " + f + ": " + reason(e));
                status = 1;
                continue;
            }
            if (s.total() == 0 && empty) {
                // A profile in which nothing happened is a finding, not a failure to read one.
                System.out.printf(Locale.ROOT, "%s: 0 samples (%s)%n", f, FlameGraphSummary.whyNoSamples(lock));
                continue;
            }
            if (s.total() == 0) {
                System.err.println("bench flame: " + f + ": not an async-profiler HTML flame graph, or one in a format this tool cannot read");
                status = 1;
                continue;
            }
            String samples = s.total() == 1 ? "sample" : "samples";
            System.out.printf(Locale.ROOT, "%s: %,d %s%n", f, s.total(), samples);
            if (s.total() < FEW_SAMPLES) {
                // Whatever the profile counts, a few samples' shares say nothing (one lock sample is
                // "100.0%" of its frame); that there were few lock or allocation events may be a
                // finding, but not how they split. Load is the cure for an idle node's CPU profile only.
                System.out.printf(Locale.ROOT, "  (only %d %s: too few for the shares below to mean much%s)%n",
                        s.total(), samples, cpu ? "; profile under load" : "");
            }
            System.out.printf(Locale.ROOT, "%nwhere they went:%n");
            print(s.categories());
            System.out.printf(Locale.ROOT, "%ntop %d self frames:%n", top);
            print(s.topSelf());
            if (callers != null) {
                System.out.printf(Locale.ROOT, "%n%s, by the Java frames above it:%n", callers);
                if (s.callers().isEmpty()) System.out.println("  (no self samples in this frame)");
                print(s.callers());
            }
            if (!s.threads().isEmpty()) {
                System.out.printf(Locale.ROOT, "%nby thread (%d threads; the most not asleep first: share of all samples, "
                        + "then of its own not in a wait; under each, its top frames outside waits):%n", s.threads().size());
                for (FlameGraphSummary.ThreadEntry t : s.threads().stream().limit(threads).toList()) {
                    System.out.printf(Locale.ROOT, "  %5.1f%%  %5.1f%% not waiting  %s%n", 100 * t.share(),
                            t.samples() > 0 ? 100.0 * t.running() / t.samples() : 0, t.thread());
                    for (FlameGraphSummary.Entry e : t.topSelf()) System.out.printf(Locale.ROOT, "            %5.1f%%  %s%n", 100 * e.share(), e.frame());
                }
            }
            System.out.println();
        }
        return status;
    }

    /**
     * Why a file could not be read, in words: Java's file exceptions often carry a bare path as
     * their message ("cannot read x.html: x.html"). ServeCommand.reason says the same of a data
     * directory, but lives in the cli module, which depends on this one.
     */
    static String reason(IOException e) {
        if (e instanceof NoSuchFileException) return "no such file";
        if (e instanceof AccessDeniedException) return "permission denied";
        if (e instanceof CharacterCodingException) return "not UTF-8 text, so not an async-profiler HTML flame graph";
        if (e instanceof FileSystemException f && f.getReason() != null) return f.getReason();
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    private static void print(List<FlameGraphSummary.Entry> entries) {
        for (FlameGraphSummary.Entry e : entries) System.out.printf(Locale.ROOT, "  %5.1f%%  %s%n", 100 * e.share(), e.frame());
    }
}
