package dht.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dht bench report}: regenerates docs/reports/*.md. Starts nodes with the launcher, fills
 * them, and for each scenario sweeps for the highest stable rate, confirms it with a longer run
 * without profilers (stepping down when it does not hold: {@link RateConfirmation}), then records
 * flame graphs in a run at {@link #PROFILED_SHARE} of the rate that held, and writes one Markdown
 * report per scenario plus an index whose columns name the run each figure comes from. The
 * hand-written analysis of a report and the notes of the index, between their markers, are kept.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Regenerate docs/reports/*.md: single node PUT/GET at 1 and 64 connections, a 3-node cluster at 64 connections, a full scan larger than the heap.")
public final class ReportCommand implements Callable<Integer> {
    static final List<String> SCENARIOS = List.of("single-put-1c", "single-get-1c", "single-put-64c", "single-get-64c",
            "cluster3-put-64c", "cluster3-get-64c", "scan-larger-than-heap");
    private static final String BEGIN = "<!-- analysis:begin (kept when the report is regenerated) -->";
    private static final String END = "<!-- analysis:end -->";
    /** The profiled run's rate, as a share of the rate that held: room for the profilers' own cost. */
    static final double PROFILED_SHARE = 0.7;

    @Option(names = "--out", defaultValue = "docs/reports", description = "Report directory (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--launcher", defaultValue = "bin/dht", description = "The dht launcher (default: ${DEFAULT-VALUE}).")
    Path launcher;

    @Option(names = "--work", description = "Directory for node data and logs, kept afterwards (default: a new "
            + "temporary directory, deleted at the end unless the run fails: it holds a million-key database).")
    Path work;

    @Option(names = "--scenarios", split = ",", description = "Subset of: ${DEFAULT-VALUE}", defaultValue =
            "single-put-1c,single-get-1c,single-put-64c,single-get-64c,cluster3-put-64c,cluster3-get-64c,scan-larger-than-heap")
    List<String> scenarios;

    @Option(names = "--quick", description = "Shorter runs (3 s sweep steps, 10 s runs) and a smaller database.")
    boolean quick;

    @Option(names = "--keys", description = "Keys filled before the runs (default: 1,000,000; quick: 200,000).")
    Long keys;

    @Option(names = "--value-size", defaultValue = "100", description = "Value size of the fill and the PUTs (default: ${DEFAULT-VALUE}).")
    int valueSize;

    @Option(names = "--p99", defaultValue = "10ms", converter = Durations.Converter.class,
            description = "The p99 bound that defines a stable rate (default: ${DEFAULT-VALUE}).")
    Duration p99;

    @Option(names = "--node-heap", defaultValue = "512m", description = "Heap of each node for the rate scenarios (default: ${DEFAULT-VALUE}).")
    String nodeHeap;

    @Option(names = "--scan-heap", defaultValue = "64m", description = "Heap of the node in the scan scenario (default: ${DEFAULT-VALUE}).")
    String scanHeap;

    @Option(names = "--profile", split = ",", defaultValue = "cpu,alloc,lock", description = "Flame graphs per run (default: ${DEFAULT-VALUE}).")
    List<String> profile;

    @Option(names = "--base-port", defaultValue = "18400", description = "First port for the nodes (default: ${DEFAULT-VALUE}).")
    int basePort;

    String machine;
    final List<String> index = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        for (String s : scenarios) {
            if (!SCENARIOS.contains(s)) {
                System.err.println("bench report: unknown scenario '" + s + "'; known: " + String.join(", ", SCENARIOS));
                return 2;
            }
        }
        if (!Files.isExecutable(launcher)) {
            System.err.println("bench report: launcher " + launcher + " not found; run from the repository root or pass --launcher");
            return 2;
        }
        long n = keys != null ? keys : quick ? 200_000 : 1_000_000;
        Path w = work != null ? Files.createDirectories(work) : Files.createTempDirectory("dht-report");
        System.err.println("bench report: node data and logs in " + w + (work != null ? "" : " (deleted at the end unless the run fails)"));
        Files.createDirectories(out);
        machine = Machine.describe();
        long t0 = System.nanoTime();
        startedNanos = t0;
        scenarioCount = scenarios.size();
        try {
            List<String> single = scenarios.stream().filter(s -> s.startsWith("single-")).toList();
            if (!single.isEmpty()) {
                try (NodeProcess node = NodeProcess.start(launcher, basePort, w.resolve("single"), null,
                        "-Xmx" + nodeHeap, w.resolve("single.log"))) {
                    String fill = fill(List.of(node.url), n, valueSize, 64);
                    for (String s : single) {
                        rateScenario(s, List.of(node.url), n, fill, "one node (`bin/dht serve`, -Xmx" + nodeHeap + ")");
                    }
                }
            }
            List<String> cluster = scenarios.stream().filter(s -> s.startsWith("cluster3-")).toList();
            if (!cluster.isEmpty()) {
                List<String> urls = List.of("http://localhost:" + (basePort + 1), "http://localhost:" + (basePort + 2),
                        "http://localhost:" + (basePort + 3));
                List<NodeProcess> nodes = new ArrayList<>();
                try {
                    for (int i = 0; i < 3; i++) {
                        nodes.add(NodeProcess.start(launcher, basePort + 1 + i, w.resolve("node" + i), urls,
                                "-Xmx" + nodeHeap, w.resolve("node" + i + ".log")));
                    }
                    String fill = fill(urls, n, valueSize, 64);
                    for (String s : cluster) {
                        rateScenario(s, urls, n, fill, "3 nodes on this machine (`bin/dht serve --cluster ...`, -Xmx"
                                + nodeHeap + " each), default ack/from = 2/3, connections spread over the 3 nodes");
                    }
                } finally {
                    nodes.forEach(NodeProcess::close);
                }
            }
            if (scenarios.contains("scan-larger-than-heap")) {
                scanScenario(w);
            }
        } catch (BenchException e) {
            System.err.println("bench report: " + e.getMessage());
            writeIndex(t0);
            return 1;
        }
        writeIndex(t0);
        System.err.printf(Locale.ROOT, "reports written to %s in %.1f minutes%n", out.toAbsolutePath(), (System.nanoTime() - t0) / 60e9);
        if (work == null) deleteTree(w); // a failed run keeps it: the node logs say why
        return 0;
    }

    /** Deletes a directory the run created, files first; what cannot be deleted is reported, not fatal. */
    private static void deleteTree(Path dir) {
        try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            System.err.println("bench report: could not delete " + dir + ": " + e.getMessage());
        }
    }

    private long startedNanos;
    private int scenarioCount;
    private int scenarioIndex;

    /** The scenario's name with where the report is: "single-get-64c (3 of 7, 4.2 min so far)". */
    private String next(String name) {
        scenarioIndex++;
        return String.format(Locale.ROOT, "%s (%d of %d, %.1f min so far)", name, scenarioIndex, scenarioCount,
                (System.nanoTime() - startedNanos) / 60e9);
    }

    private String fill(List<String> urls, long n, int size, int connections) throws Exception {
        FillCommand f = new FillCommand();
        f.target = targets(urls, connections, size);
        f.count = n;
        System.err.printf(Locale.ROOT, "== fill %,d keys of %d bytes into %s%n", n, size, urls);
        long t = System.nanoTime();
        int code = f.call();
        double secs = (System.nanoTime() - t) / 1e9;
        if (f.lastResult == null) {
            throw BenchException.atRunTime("fill failed (exit " + code + ")");
        }
        ConnectionStats st = f.lastResult.stats();
        long created = st.statusCounts[201];
        String problems = created == n ? "" : String.format(Locale.ROOT, " (**only %,d answered 201**: %d other statuses, %d socket errors; the runs go on with the keys that are there)",
                created, st.completed - created, f.lastResult.errors());
        return String.format(Locale.ROOT, "%,d keys of %d bytes filled with `dht bench fill --url %s --count %d --value-size %d -c %d` in %.1f s (%,.0f keys/s)%s",
                n, size, String.join(",", urls), n, size, connections, secs, n / secs, problems);
    }

    private TargetOptions targets(List<String> urls, int connections, int size) {
        TargetOptions t = new TargetOptions();
        t.urls = urls;
        t.connections = connections;
        t.timeout = Duration.ofSeconds(10);
        t.keys = keys != null ? keys : quick ? 200_000 : 1_000_000;
        t.valueSize = size;
        t.seed = 42;
        return t;
    }

    private LoadOptions load(Workload w) {
        LoadOptions l = new LoadOptions();
        l.workload = w;
        l.distribution = KeyDistribution.Kind.uniform;
        l.warmup = Duration.ofSeconds(5);
        l.missRatio = 0;
        l.readRatio = 0.9;
        l.rangeLength = 100;
        l.spin = Duration.ofNanos(20_000);
        return l;
    }

    private void rateScenario(String name, List<String> urls, long n, String fill, String nodes) throws Exception {
        Workload wl = name.contains("-put-") ? Workload.put : Workload.get;
        int conns = name.endsWith("-1c") ? 1 : 64;
        Path dir = out.resolve(name);
        Files.createDirectories(dir);
        SweepCommand sw = new SweepCommand();
        sw.target = targets(urls, conns, valueSize);
        sw.load = load(wl);
        // Fresh JVMs reach steady state only after the JIT has compiled the hot paths, which takes
        // tens of seconds of load for several JVMs on few cores. Untimed closed-loop load first, so
        // the sweep measures the node, not C2.
        Duration warmUp = Duration.ofSeconds(quick ? 10 : 30);
        System.err.printf(Locale.ROOT, "== %s: warm-up, %d s of closed-loop load%n", next(name), warmUp.toSeconds());
        new LoadGenerator(sw.load.spec(sw.target, 0, Duration.ZERO, warmUp, false), System.err).run();
        System.err.println("== " + name + ": sweep");
        sw.p99Bound = p99;
        sw.startRate = conns == 1 ? 1000 : 4000;
        sw.maxRate = 1_000_000;
        sw.stepDuration = Duration.ofSeconds(quick ? 3 : 5);
        sw.stepWarmup = Duration.ofSeconds(quick ? 1 : 2);
        sw.precision = quick ? 0.15 : 0.08;
        sw.maxSteps = quick ? 6 : 9;
        SweepCommand.Outcome o = sw.sweep();
        String table = sweepTable(o);
        Files.writeString(dir.resolve("sweep.txt"), table);

        double swept = o.highestStable() > 0 ? o.highestStable()
                : o.steps().stream().mapToDouble(SweepCommand.Step::rate).min().orElse(sw.startRate); // none passed: the gentlest rate tried
        Duration runDuration = Duration.ofSeconds(quick ? 10 : 30);
        Duration warm = Duration.ofSeconds(quick ? 2 : 5);
        System.err.println("== " + name + ": confirming the sweep's rate without profilers");
        RateConfirmation.Outcome confirmed = RateConfirmation.confirm(sw.load, sw.target, swept, warm, runDuration, p99);
        RunResult r = confirmed.lastRun();
        double rate = confirmed.rate();
        String title = name + " at " + (long) rate + " req/s";
        String command = runCommand(urls, wl, conns, rate, runDuration, warm, n, List.of(), dir);
        String text = ResultWriter.text(r, title);
        ResultWriter.write(dir, r, title, command, text);
        Files.writeString(dir.resolve("confirm.txt"), confirmed.table());

        // Profilers cost the node CPU: at the held rate they would measure a node past its limit,
        // so they record at a share of it, which the node has room for.
        double profiledRate = Math.round(PROFILED_SHARE * rate);
        Duration profiledDuration = runDuration;
        Path profiledDir = dir.resolve("profiled");
        LoadSpec spec = sw.load.spec(sw.target, profiledRate, warm, profiledDuration, false);
        System.err.printf(Locale.ROOT, "== %s: run at %.0f req/s with %s%n", name, profiledRate, profile);
        CompletableFuture<List<String>> flames = profile.isEmpty() ? CompletableFuture.completedFuture(List.of())
                : new ProfileClient(profile, dir).record(spec.targets(), warm.plusMillis(20), profiledDuration);
        NodeAllocation allocation = NodeAllocation.startAfter(spec.targets(), warm);
        RunResult profiled = new LoadGenerator(spec, System.err).run();
        String allocationLine = allocation.finish(profiled.stats().completed);
        String profiledTitle = name + " at " + (long) profiledRate + " req/s, profiled";
        String profiledCommand = runCommand(urls, wl, conns, profiledRate, profiledDuration, warm, n, profile, profiledDir);
        String profiledText = ResultWriter.text(profiled, profiledTitle) + allocationLine + "\n";
        ResultWriter.write(profiledDir, profiled, profiledTitle, profiledCommand, profiledText);
        List<String> flameLines = flames.join();

        StringBuilder md = new StringBuilder();
        md.append("# ").append(heading(name)).append("\n\n");
        md.append("Generated by `dht bench report").append(quick ? " --quick" : "").append("` at ").append(Instant.now()).append(".\n\n");
        md.append("## Setup\n\n");
        md.append("- Machine: ").append(machine).append(". The generator runs on the same cores as the node(s).\n");
        md.append("- Nodes: ").append(nodes).append(".\n");
        md.append("- Data: ").append(fill).append(".\n");
        md.append("- Load: ").append(wl == Workload.put ? "PUT of " + valueSize + "-byte values to uniformly chosen existing keys (overwrites)"
                : "GET of uniformly chosen existing keys").append(", ").append(conns).append(conns == 1 ? " connection" : " connections")
                .append(", one request in flight per connection, constant rate, latency from the intended send time.\n\n");
        md.append("## Highest stable rate in the sweep\n\n");
        md.append(String.format(Locale.ROOT, "**%s** with p99 at most %s over %d s steps (sweep: doubling, then bisecting; a step passes when p99 is within the bound, "
                + "at least 97%% of the rate is answered, and there are no socket errors or 5xx).\n\n",
                o.highestStable() > 0 ? String.format(Locale.ROOT, "%,.0f req/s", o.highestStable()) : "none found (even the first rate failed)",
                Durations.formatMillis(p99.toNanos() / 1e6), sw.stepDuration.toSeconds()));
        md.append("```\n").append(table).append("```\n\n");
        md.append("## Confirmed without profilers\n\n");
        md.append(String.format(Locale.ROOT, "A %d s run at the sweep's rate, judged as a sweep step; when it does not hold, again at 85%% and then 70%% of it. "
                + "%s\n\n", runDuration.toSeconds(), confirmed.held()
                ? String.format(Locale.ROOT, "**%,.0f req/s held**; the figures below are that run's.", rate)
                : String.format(Locale.ROOT, "**None held**; the figures below are the run at %,.0f req/s, the lowest tried.", rate)));
        md.append("```\n").append(confirmed.table()).append("```\n\n");
        md.append("```\n").append(command).append("\n```\n\n");
        md.append("![latency by percentile](").append(name).append("/latency.png)\n\n");
        md.append("```\n").append(withoutSpectrum(text)).append("```\n\n");
        md.append("Full output: [summary.txt](").append(name).append("/summary.txt), [summary.json](").append(name)
                .append("/summary.json), [latency.hgrm](").append(name).append("/latency.hgrm).\n\n");
        md.append("## Profiled run\n\n");
        md.append(String.format(Locale.ROOT, "At %,.0f req/s (%.0f%% of the rate above) with the %s profilers attached to every node, for the flame graphs: "
                + "p50 %s, p99 %s. These latencies include what the profilers cost the node.\n\n",
                profiledRate, 100 * PROFILED_SHARE, String.join(", ", profile), Durations.formatMillis(profiled.latencyMs(50)),
                Durations.formatMillis(profiled.latencyMs(99))));
        md.append("```\n").append(profiledCommand).append("\n```\n\n");
        md.append("Full output: [summary.txt](").append(name).append("/profiled/summary.txt), [latency.hgrm](").append(name)
                .append("/profiled/latency.hgrm).\n\n");
        md.append("## Flame graphs\n\n");
        FlameSection.append(md, name, flameLines, profiledDuration, profile.size());
        md.append("## Analysis\n\n").append(keptAnalysis(out.resolve(name + ".md"))).append('\n');
        Files.writeString(out.resolve(name + ".md"), md);
        index.add(String.format(Locale.ROOT, "| [%s](%s.md) | %s | %s | %s / %s | %s: %s |", heading(name), name,
                o.highestStable() > 0 ? String.format(Locale.ROOT, "%,.0f req/s", o.highestStable()) : "none",
                confirmed.held() ? String.format(Locale.ROOT, "%,.0f req/s", rate) : String.format(Locale.ROOT, "none (down to %,.0f req/s)", rate),
                Durations.formatMillis(r.latencyMs(50)), Durations.formatMillis(r.latencyMs(99)),
                String.format(Locale.ROOT, "%,.0f req/s", profiledRate), Durations.formatMillis(profiled.latencyMs(99))));
    }

    /** The {@code dht bench} command line of a run the report made. */
    private String runCommand(List<String> urls, Workload wl, int conns, double rate, Duration duration, Duration warm, long n,
                              List<String> profilers, Path dir) {
        return String.format(Locale.ROOT, "dht bench --url %s -w %s -c %d -R %.0f -d %ds --warmup %ds --keys %d --value-size %d%s --out %s",
                String.join(",", urls), wl, conns, rate, duration.toSeconds(), warm.toSeconds(), n, valueSize,
                profilers.isEmpty() ? "" : " --profile " + String.join(",", profilers), dir);
    }

    private void scanScenario(Path w) throws Exception {
        String name = "scan-larger-than-heap";
        Path dir = out.resolve(name);
        Files.createDirectories(dir);
        int size = 4096;
        long heapBytes = parseSize(scanHeap);
        long n = Math.max(10_000, 3 * heapBytes / size); // about three heaps of values
        try (NodeProcess node = NodeProcess.start(launcher, basePort + 10, w.resolve("scan"), null, "-Xmx" + scanHeap,
                w.resolve("scan.log"))) {
            String fill = fill(List.of(node.url), n, size, 16);
            Target t = Target.parse(node.url);
            System.err.println("== " + next(name) + ": full scans");
            List<FullScan.Result> scans = new ArrayList<>();
            CompletableFuture<List<String>> flames = CompletableFuture.completedFuture(List.of());
            Duration window = Duration.ofSeconds(quick ? 6 : 15).multipliedBy(Math.max(1, profile.size()));
            scans.add(FullScan.run(t, Keys.key(0), null)); // the first scan also warms up
            if (!profile.isEmpty()) {
                flames = new ProfileClient(profile, dir).record(List.of(t), Duration.ZERO, window);
            }
            long until = System.nanoTime() + window.toNanos();
            while (System.nanoTime() < until || scans.size() < 3) {
                scans.add(FullScan.run(t, Keys.key(0), null));
            }
            List<String> flameLines = flames.join();
            StringBuilder rows = new StringBuilder(String.format(Locale.ROOT, "%5s %10s %12s %12s %10s %12s %8s%n",
                    "scan", "entries", "MB", "seconds", "first byte", "entries/s", "MB/s"));
            for (int i = 0; i < scans.size(); i++) {
                FullScan.Result s = scans.get(i);
                rows.append(String.format(Locale.ROOT, "%5d %10d %12.1f %12.2f %10s %12.0f %8.1f%n", i + 1, s.entries(),
                        s.bytes() / 1048576.0, s.seconds(), Durations.formatMillis(s.firstByteMs()), s.entriesPerSecond(),
                        s.megabytesPerSecond()));
            }
            double[] eps = scans.stream().skip(1).mapToDouble(FullScan.Result::entriesPerSecond).sorted().toArray();
            double median = eps[eps.length / 2];
            boolean complete = scans.stream().allMatch(s -> s.entries() == n && s.status() == 200);
            Files.writeString(dir.resolve("scans.txt"), rows.toString());
            StringBuilder md = new StringBuilder();
            md.append("# ").append(heading(name)).append("\n\n");
            md.append("Generated by `dht bench report").append(quick ? " --quick" : "").append("` at ").append(Instant.now()).append(".\n\n");
            md.append("## Setup\n\n- Machine: ").append(machine).append(".\n");
            md.append("- Node: one node with -Xmx").append(scanHeap).append(".\n");
            md.append("- Data: ").append(fill).append(String.format(Locale.ROOT, ": about %.0f MB of values, %.1f times the heap.%n",
                    n * (double) size / 1048576, n * (double) size / heapBytes));
            md.append("- Load: `GET /v0/entities?start=k0000000000` (no end: the whole database) over one connection, read as it streams, "
                    + "repeated back to back; entries are counted by chunk.\n\n");
            md.append("## Result\n\n");
            md.append(String.format(Locale.ROOT, "Median of the scans after the first: **%,.0f entries/s** (%s). Every scan returned all %,d entries: %s.%n%n",
                    median, String.format(Locale.ROOT, "%.1f MB/s", median * (size + 11) / 1048576.0), n, complete ? "yes" : "**no**"));
            md.append("```\n").append(rows).append("```\n\n");
            md.append("## Flame graphs (during the repeated scans)\n\n");
            FlameSection.append(md, name, flameLines, window, profile.size());
            md.append("## Analysis\n\n").append(keptAnalysis(out.resolve(name + ".md"))).append('\n');
            Files.writeString(out.resolve(name + ".md"), md);
            index.add(String.format(Locale.ROOT, "| [%s](%s.md) | %,.0f entries/s (full scan) | | | |", heading(name), name, median));
        }
    }

    static String keptAnalysis(Path md) throws IOException {
        if (Files.exists(md)) {
            Matcher m = Pattern.compile(Pattern.quote(BEGIN) + "(.*?)" + Pattern.quote(END), Pattern.DOTALL).matcher(Files.readString(md));
            if (m.find()) {
                return BEGIN + m.group(1) + END + "\n";
            }
        }
        return BEGIN + "\nNot written yet: this section is written by hand from the flame graphs above, and kept when the report is regenerated.\n" + END + "\n";
    }

    private static String withoutSpectrum(String text) {
        int a = text.indexOf("  Detailed Percentile spectrum:");
        int b = text.indexOf("----------------------------------------------------------");
        return a >= 0 && b > a ? text.substring(0, a) + "  (detailed percentile spectrum: see summary.txt)\n" + text.substring(b) : text;
    }

    private String sweepTable(SweepCommand.Outcome o) {
        StringBuilder b = new StringBuilder(SweepCommand.header()).append('\n');
        for (SweepCommand.Step s : o.steps()) {
            b.append(SweepCommand.row(s)).append('\n');
        }
        return b.append(String.format(Locale.ROOT, "highest stable rate: %.0f req/s%n", o.highestStable())).toString();
    }

    void writeIndex(long t0) throws IOException {
        StringBuilder md = new StringBuilder("# Performance reports\n\n");
        md.append("Regenerate with `bin/dht bench report` (from the repository root; `--quick` for a shorter run). ")
                .append(String.format(Locale.ROOT, "This set took %.1f minutes", (System.nanoTime() - t0) / 60e9))
                .append(quick ? " with --quick" : "").append(".\n\nMachine: ").append(machine).append(".\n\n");
        String header = indexHeader();
        md.append(header).append('\n').append("|---".repeat(cells(header))).append("|\n");
        List<String> rows = new ArrayList<>();
        Path readme = out.resolve("README.md");
        String notes = NOTES_BEGIN + "\nNot written yet: notes on this set, written by hand and kept when the index is regenerated.\n" + NOTES_END;
        if (Files.exists(readme)) { // keep the rows of scenarios not rerun this time, when they have these columns
            String old = Files.readString(readme);
            for (String l : old.lines().toList()) {
                Matcher m = Pattern.compile("^\\| \\[.*?\\]\\(([^)]+)\\.md\\)").matcher(l);
                if (m.find() && !scenarios.contains(m.group(1))) {
                    rows.add(cells(l) == cells(header) ? l
                            : l.substring(0, m.end()) + " | awaits a rerun (measured before these columns)" + " |".repeat(cells(header) - 1));
                }
            }
            Matcher kept = Pattern.compile(Pattern.quote(NOTES_BEGIN) + ".*?" + Pattern.quote(NOTES_END), Pattern.DOTALL).matcher(old);
            if (kept.find()) notes = kept.group();
        }
        rows.addAll(index);
        rows.sort(java.util.Comparator.comparingInt(l -> {
            for (int i = 0; i < SCENARIOS.size(); i++) {
                if (l.contains("(" + SCENARIOS.get(i) + ".md)")) {
                    return i;
                }
            }
            return SCENARIOS.size();
        }));
        rows.forEach(l -> md.append(l).append('\n'));
        md.append('\n').append(notes).append('\n');
        Files.writeString(readme, md);
    }

    private static final String NOTES_BEGIN = "<!-- notes:begin (kept when the index is regenerated) -->";
    private static final String NOTES_END = "<!-- notes:end -->";

    /** The index's header row: each column says which run its figure comes from. */
    String indexHeader() {
        String bound = Durations.formatMillis(p99.toNanos() / 1e6);
        int step = quick ? 3 : 5;
        int run = quick ? 10 : 30;
        return String.format(Locale.ROOT, "| scenario | sweep: highest rate with p99 ≤ %s in a %d s step "
                + "| held for %d s without profilers (the sweep's rate, else 85%%, 70%% of it) "
                + "| p50 / p99 of that %d s run | profiled run (%s) at %.0f%% of the held rate: rate, p99 |",
                bound, step, run, run, profile == null ? "" : String.join(", ", profile), 100 * PROFILED_SHARE);
    }

    /** The number of cells of a table row. */
    static int cells(String row) {
        String t = row.strip();
        return (int) t.chars().filter(c -> c == '|').count() - 1;
    }

    private static String heading(String name) {
        return switch (name) {
            case "single-put-1c" -> "Single node, PUT, 1 connection";
            case "single-get-1c" -> "Single node, GET, 1 connection";
            case "single-put-64c" -> "Single node, PUT, 64 connections";
            case "single-get-64c" -> "Single node, GET, 64 connections";
            case "cluster3-put-64c" -> "3-node cluster (2/3), PUT, 64 connections";
            case "cluster3-get-64c" -> "3-node cluster (2/3), GET, 64 connections";
            case "scan-larger-than-heap" -> "Full-range scan of a database larger than the heap";
            default -> name;
        };
    }

    static long parseSize(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        long mult = t.endsWith("g") ? 1L << 30 : t.endsWith("m") ? 1L << 20 : t.endsWith("k") ? 1L << 10 : 1;
        return Long.parseLong(t.replaceAll("[gmk]$", "")) * mult;
    }
}
