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
    void theIndexKeepsRowsOfScenariosNotRerunAndItsNotes() throws Exception {
        ReportCommand r = report();
        Files.writeString(dir.resolve("README.md"), String.join("\n",
                "# Performance reports", "", "| scenario | a | b | c | d |", "|---|---|---|---|---|",
                "| [Single node, PUT, 1 connection](single-put-1c.md) | 1 req/s | old | old | old |",
                "| [Single node, GET, 64 connections](single-get-64c.md) | 4,500 req/s | x | y | z |", "",
                "<!-- notes:begin (kept when the index is regenerated) -->", "Measured on a busy day.", "<!-- notes:end -->", ""));
        r.index.add("| [Single node, PUT, 1 connection](single-put-1c.md) | 99 req/s | new | new | new |");
        r.writeIndex(System.nanoTime());
        String readme = Files.readString(dir.resolve("README.md"));
        assertThat(readme).contains("| 99 req/s | new | new | new |").doesNotContain("| 1 req/s | old |")
                .contains("(single-get-64c.md) | 4,500 req/s | x | y | z |")
                .contains("Measured on a busy day.");
        // in scenario order: the 1-connection PUT before the 64-connection GET
        assertThat(readme.indexOf("single-put-1c.md")).isLessThan(readme.indexOf("single-get-64c.md"));
    }

    /** A row measured under other columns is not shown under these: its figures would say something else. */
    @Test
    void aKeptRowWithOtherColumnsAwaitsARerun() throws Exception {
        ReportCommand r = report();
        Files.writeString(dir.resolve("README.md"), String.join("\n",
                "| scenario | highest stable rate | p50 at that rate | p99 at that rate |", "|---|---|---|---|",
                "| [Single node, GET, 64 connections](single-get-64c.md) | 52,000 req/s | 591.87us | 15.31ms |", ""));
        r.writeIndex(System.nanoTime());
        String readme = Files.readString(dir.resolve("README.md"));
        assertThat(readme).contains("(single-get-64c.md) | awaits a rerun").doesNotContain("15.31ms")
                .contains("Not written yet");
        assertThat(readme.lines().filter(l -> l.startsWith("| [")))
                .allSatisfy(l -> assertThat(ReportCommand.cells(l)).isEqualTo(ReportCommand.cells(r.indexHeader())));
    }

    /** Every column names the run its figure comes from: the sweep's step, the unprofiled run, the profiled one. */
    @Test
    void theHeaderSaysWhichRunEachFigureComesFrom() {
        String header = report().indexHeader();
        assertThat(header).contains("sweep: highest rate with p99 ≤ 10.00ms in a 5 s step")
                .contains("held for 30 s without profilers").contains("p50 / p99 of that 30 s run")
                .contains("profiled run (cpu, alloc, lock) at 70% of the held rate");
        assertThat(ReportCommand.cells(header)).isEqualTo(5);
    }

    private ReportCommand report() {
        ReportCommand r = new ReportCommand();
        r.out = dir;
        r.machine = "test machine";
        r.p99 = Duration.ofMillis(10);
        r.profile = List.of("cpu", "alloc", "lock");
        r.scenarios = List.of("single-put-1c");
        return r;
    }
}
