package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * get, put, delete and scan against a node process: what each prints, where, and its exit code,
 * as the README and the API contract promise them (the commands speak through the client library).
 */
class KeyCommandsProcessTest {
    record Outcome(int exitCode, String stdout, String stderr) {
    }

    @TempDir
    static Path tmp;

    private static NodeProcess node;

    @BeforeAll
    static void start() throws Exception {
        node = new NodeProcess(TestPorts.free(), tmp.resolve("d"), List.of()).startAndAwait();
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) node.close();
    }

    @Test
    void putGetDeleteSayTheirStatusAndPrintTheValue() {
        assertThat(run(null, "put", "pgd", "v1")).isEqualTo(new Outcome(0, "", "201\n"));
        assertThat(run(null, "get", "pgd")).isEqualTo(new Outcome(0, "v1", ""));
        assertThat(run(null, "delete", "pgd")).isEqualTo(new Outcome(0, "", "202\n"));
        assertThat(run(null, "get", "pgd")).isEqualTo(new Outcome(1, "", "404 not found\n"));
        assertThat(run(null, "delete", "never-there")).as("deleting an absent key").isEqualTo(new Outcome(0, "", "202\n"));
    }

    @Test
    void aValueFromStandardInputIsStoredByteForByte() {
        byte[] value = {'a', '\n', 0, (byte) 0xff, '\r'};
        assertThat(run(value, "put", "stdin", "--ack", "1", "--from", "1")).isEqualTo(new Outcome(0, "", "201\n"));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(run(null, out, "get", "stdin").exitCode()).isZero();
        assertThat(out.toByteArray()).isEqualTo(value);
    }

    @Test
    void aRefusedRequestIsTheNodesStatusAndReasonOnOneLine() {
        Outcome o = run(null, "get", "k", "--from", "2");

        assertThat(o.exitCode()).isEqualTo(1);
        assertThat(o.stdout()).isEmpty();
        assertThat(o.stderr()).startsWith("400 ").contains("from").endsWith("\n");
        assertThat(o.stderr().lines()).hasSize(1);
    }

    @Test
    void keysWithQueryCharactersAreTheirOwnKeysInEveryCommand() {
        String key = "q/a b+c&d=e%f#g;h";
        assertThat(run(null, "put", key, "odd").exitCode()).isZero();
        assertThat(run(null, "put", "q/a", "plain").exitCode()).isZero();

        assertThat(run(null, "get", key).stdout()).isEqualTo("odd");
        assertThat(run(null, "scan", "q/", "q0")).isEqualTo(new Outcome(0, "q/a\tplain\n" + key + "\todd\n", ""));
    }

    /** On a node alone the cluster scope is the merged scan, asked for; local is its store: both see the data. */
    @Test
    void aScanInEitherScopePrintsTheRange() {
        assertThat(run(null, "put", "s:1", "one\ttab").exitCode()).isZero();
        assertThat(run(null, "put", "s:2", "two").exitCode()).isZero();
        String expected = "s:1\tone\\ttab\ns:2\ttwo\n";

        assertThat(run(null, "scan", "s:", "s;")).isEqualTo(new Outcome(0, expected, ""));
        assertThat(run(null, "scan", "s:", "s;", "--cluster", "--ack", "1")).isEqualTo(new Outcome(0, expected, ""));
        assertThat(run(null, "scan", "s:", "s;", "--local")).isEqualTo(new Outcome(0, expected, ""));
        assertThat(run(null, "scan", "s:", "s;", "--cluster", "--ack", "2").stderr())
                .as("ack beyond a cluster of one").startsWith("400 ");
    }

    /**
     * The JVM turns argument bytes its locale cannot decode into U+FFFD, so {@code col\xff} and
     * {@code col\xfe} would both name one key: such an argument is bad usage, and nothing is sent.
     */
    @Test
    void anArgumentWhoseBytesTheLocaleCouldNotDecodeIsRefused() {
        String undecoded = "col\uFFFD";
        for (String[] args : List.of(new String[] {"put", undecoded, "v"}, new String[] {"put", "col", "v\uFFFD"},
                new String[] {"get", undecoded}, new String[] {"delete", undecoded}, new String[] {"scan", undecoded},
                new String[] {"repair", undecoded}, new String[] {"repair", "a", undecoded})) {
            Outcome o = run(null, args);
            assertThat(o.exitCode()).as("%s", List.of(args)).isEqualTo(2);
            assertThat(o.stderr()).as("%s", List.of(args)).contains("not valid in this terminal's encoding");
        }
        assertThat(run(null, "get", "col").exitCode()).as("nothing was written").isEqualTo(1);
    }

    private static Outcome run(byte[] stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Outcome o = run(stdin, out, args);
        return new Outcome(o.exitCode(), out.toString(StandardCharsets.UTF_8), o.stderr());
    }

    /** Runs {@code dht args --url NODE} in this JVM, stdout into {@code out}. */
    private static Outcome run(byte[] stdin, ByteArrayOutputStream out, String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream savedErr = System.err;
        PrintStream savedOut = System.out;
        InputStream savedIn = System.in;
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--url=" + node.url());
        try (PrintStream o = new PrintStream(out, true); PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            System.setErr(e);
            if (stdin != null) System.setIn(new ByteArrayInputStream(stdin));
            int code = Main.commandLine().setErr(new PrintWriter(e, true)).setOut(new PrintWriter(o, true))
                    .execute(all.toArray(String[]::new));
            return new Outcome(code, null, err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(savedErr);
            System.setOut(savedOut);
            System.setIn(savedIn);
        }
    }
}
