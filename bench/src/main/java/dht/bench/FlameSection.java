package dht.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * A report's "Flame graphs" section: a link to each flame graph {@link ProfileClient} recorded,
 * with its sample count and where the samples went ({@link FlameGraphSummary}).
 */
final class FlameSection {
    private FlameSection() {
    }

    /**
     * Appends the section's lines for {@code lines} (ProfileClient's, one per graph or failure),
     * recorded over {@code window} split between {@code events} profilers.
     */
    static void append(StringBuilder md, String name, List<String> lines, Duration window, int events) {
        if (lines.isEmpty()) {
            md.append("Not recorded (no --profile).\n\n");
            return;
        }
        md.append("Recorded from the node(s) over the measured window, split between the events (")
                .append(Durations.formatMillis(window.toMillis() / (double) Math.max(1, events))).append(" each):\n\n");
        for (String l : lines) {
            int at = l.lastIndexOf(": ");
            if (l.contains(" failed") || l.contains("could not")) {
                md.append("- ").append(l).append('\n');
            } else {
                Path f = Path.of(l.substring(at + 2));
                md.append("- [").append(f.getFileName()).append("](").append(name).append('/').append(f.getFileName()).append(")");
                try {
                    String html = Files.readString(f);
                    FlameGraphSummary.Summary sum = FlameGraphSummary.parse(html, 8);
                    if (sum.topSelf().isEmpty()) {
                        md.append(!FlameGraphSummary.isEmptyProfile(html) ? ": a format this tool could not read\n"
                                : f.getFileName().toString().contains("-lock-") ? ": no samples (" + FlameGraphSummary.whyNoSamples(true) + ")\n"
                                : ": no samples\n");
                    } else {
                        boolean cpu = f.getFileName().toString().contains("-cpu-");
                        if (cpu) {
                            md.append(String.format(Locale.ROOT, ": %,d samples; where they went (`dht bench flame`):", sum.total()));
                            StringBuilder parts = new StringBuilder();
                            for (FlameGraphSummary.Entry c : sum.categories()) {
                                if (c.share() < 0.01) continue;
                                parts.append(parts.isEmpty() ? " " : ", ").append(String.format(Locale.ROOT, "%.1f%% %s", 100 * c.share(), c.frame()));
                            }
                            md.append(parts).append("; most self samples:\n");
                        } else {
                            md.append(String.format(Locale.ROOT, ": %,d samples; most self %s:%n", sum.total(),
                                    f.getFileName().toString().contains("alloc") ? "allocation samples (by allocated type)" : "samples"));
                        }
                        for (FlameGraphSummary.Entry e : sum.topSelf()) {
                            md.append(String.format(Locale.ROOT, "  - %.1f%% `%s`%n", 100 * e.share(), e.frame().replace("`", "'")));
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    md.append(": could not be read (").append(e).append(")\n");
                }
            }
        }
        md.append('\n');
    }
}
