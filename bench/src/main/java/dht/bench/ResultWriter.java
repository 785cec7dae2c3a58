package dht.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes a run's files into its output directory: summary.txt, summary.json, latency.hgrm, latency.png
 * and timeline.txt (the worst latency of each 100 ms, by wall-clock time).
 */
public final class ResultWriter {
    private ResultWriter() {
    }

    public static String text(RunResult r, String title) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (PrintStream p = new PrintStream(b, true, StandardCharsets.UTF_8)) {
            TextSummary.print(r, title, p);
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    public static void write(Path dir, RunResult r, String title, String command, String text) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("summary.txt"), text);
        Files.writeString(dir.resolve("summary.json"), JsonSummary.of(r, command));
        Path hgrm = dir.resolve("latency.hgrm");
        try (PrintStream p = new PrintStream(Files.newOutputStream(hgrm), true, StandardCharsets.UTF_8)) {
            r.stats().latency.outputPercentileDistribution(p, 5, 1e6);
        }
        try (PrintStream p = new PrintStream(Files.newOutputStream(dir.resolve("timeline.txt")), true, StandardCharsets.UTF_8)) {
            r.stats().timeline.print(r.windowOpensAt(), p);
        }
        if (r.stats().latency.getTotalCount() > 0) {
            PercentilePlot.write(List.of(HgrmFile.read(hgrm)), title, dir.resolve("latency.png"));
        }
    }
}
