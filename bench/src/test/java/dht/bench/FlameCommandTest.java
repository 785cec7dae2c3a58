package dht.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What {@code bench flame} says about files it cannot use, and about profiles too small to mean much. */
class FlameCommandTest {
    record Outcome(int exitCode, String stdout, String stderr) {
    }

    /** The reason, not only the path again (it printed "cannot read /x.html: /x.html"). */
    @Test
    void aFileThatCannotBeReadIsSaidWhy(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing.html");
        Outcome o = flame(missing.toString());
        // A failure to do the work, as for any mode (exit 2 is for bad usage, with a pointer to --help).
        assertThat(o.exitCode()).isEqualTo(1);
        assertThat(o.stderr().strip()).isEqualTo("bench flame: cannot read " + missing + ": no such file");

        Path binary = Files.write(dir.resolve("binary.html"), new byte[] {(byte) 0xff, (byte) 0xfe});
        assertThat(flame(binary.toString()).stderr().strip())
                .isEqualTo("bench flame: cannot read " + binary + ": not UTF-8 text, so not an async-profiler HTML flame graph");
    }

    /**
     * A lock profile of a node with no contention is a flame graph with no samples: said as a
     * finding (exit 0), where any HTML that is no flame graph is a failure to read one (exit 1):
     * the two are told apart.
     */
    @Test
    void anEmptyProfileIsToldApartFromAFileThatIsNoFlameGraph(@TempDir Path dir) throws Exception {
        Path empty = Files.writeString(dir.resolve("lock.html"), """
                <h1>Lock profile</h1>
                <script>
                const cpool = [
                'all'
                ];
                unpack(cpool);

                n(2)
                </script>
                """);
        Outcome o = flame(empty.toString());
        assertThat(o.exitCode()).isZero();
        assertThat(o.stdout().strip()).isEqualTo(empty + ": 0 samples (no lock was contended while it ran)");

        String unreadable = "bench flame: %s: not an async-profiler HTML flame graph, or one in a format this tool cannot read";
        Path page = Files.writeString(dir.resolve("page.html"), "<html><body>hello</body></html>");
        o = flame(page.toString());
        assertThat(o.exitCode()).isEqualTo(1);
        assertThat(o.stderr().strip()).isEqualTo(unreadable.formatted(page));

        // frames named, but drawn by calls this tool does not know: unreadable, not "0 samples"
        Path changed = Files.writeString(dir.resolve("changed.html"), ONE_LOCK_SAMPLE.replace("f(0,0,0,1)", "frame(0,0,0,1)")
                .replace("u(9,1)", "up(9,1)"));
        o = flame(changed.toString());
        assertThat(o.exitCode()).isEqualTo(1);
        assertThat(o.stderr().strip()).isEqualTo(unreadable.formatted(changed));
    }

    /** One lock sample, as a node with no contention gives: 100% of it says nothing. */
    static final String ONE_LOCK_SAMPLE = """
            <h1>Lock profile</h1>
            <script>
            const cpool = [
            'all',
            ' java/util/concurrent/locks/ReentrantLock$NonfairSync',
            ];
            unpack(cpool);

            f(0,0,0,1)
            u(9,1)
            </script>
            """;

    /**
     * Every kind of profile with few samples is flagged, not only CPU profiles (one lock sample
     * would otherwise read as "100.0% ReentrantLock$NonfairSync"); only a CPU profile is
     * told to profile under load.
     */
    @Test
    void fewSamplesAreFlaggedWhateverTheProfile(@TempDir Path dir) throws Exception {
        Path lock = Files.writeString(dir.resolve("lock.html"), ONE_LOCK_SAMPLE);
        Outcome o = flame(lock.toString());
        assertThat(o.exitCode()).isZero();
        assertThat(o.stdout()).contains("100.0%  java/util/concurrent/locks/ReentrantLock$NonfairSync")
                .contains("(only 1 sample: too few for the shares below to mean much)");

        Path cpu = Files.writeString(dir.resolve("cpu.html"), "<h1>CPU profile</h1>\n" + FlameGraphSummaryTest.CPU);
        assertThat(flame(cpu.toString()).stdout())
                .contains("(only 100 samples: too few for the shares below to mean much; profile under load)");
    }

    static Outcome flame(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            System.setErr(e);
            int code = new CommandLine(new FlameCommand()).execute(args);
            return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
    }
}
