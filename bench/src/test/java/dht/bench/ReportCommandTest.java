package dht.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Regenerating reports must not lose what people wrote or what other scenarios measured. */
class ReportCommandTest {
    @TempDir
    Path dir;

    @Test
    void keepsTheHandWrittenAnalysis() throws Exception {
        Path md = dir.resolve("single-put-1c.md");
        assertThat(ReportCommand.keptAnalysis(md)).contains("Not written yet");
        String begin = "<!-- analysis:begin (kept when the report is regenerated) -->";
        Files.writeString(md, "# old\n\n## Analysis\n\n" + begin + "\nThe memtable is the limit.\n<!-- analysis:end -->\n");
        String kept = ReportCommand.keptAnalysis(md);
        assertThat(kept).startsWith(begin).contains("The memtable is the limit.").endsWith("<!-- analysis:end -->\n");
        assertThat(kept).doesNotContain("Not written yet");
    }

    @Test
    void theIndexKeepsRowsOfScenariosNotRerun() throws Exception {
        ReportCommand r = new ReportCommand();
        r.out = dir;
        r.machine = "test machine";
        r.p99 = Duration.ofMillis(10);
        r.scenarios = List.of("single-put-1c");
        Files.writeString(dir.resolve("README.md"), String.join("\n",
                "# Performance reports", "", "| scenario | a | b | c |", "|---|---|---|---|",
                "| [Single node, PUT, 1 connection](single-put-1c.md) | 1 req/s | old | old |",
                "| [Single node, GET, 64 connections](single-get-64c.md) | 4,500 req/s | x | y |", ""));
        r.index.add("| [Single node, PUT, 1 connection](single-put-1c.md) | 99 req/s | new | new |");
        r.writeIndex(System.nanoTime());
        String readme = Files.readString(dir.resolve("README.md"));
        assertThat(readme).contains("| 99 req/s | new | new |").doesNotContain("| 1 req/s | old | old |")
                .contains("(single-get-64c.md) | 4,500 req/s | x | y |");
        // in scenario order: the 1-connection PUT before the 64-connection GET
        assertThat(readme.indexOf("single-put-1c.md")).isLessThan(readme.indexOf("single-get-64c.md"));
    }
}
