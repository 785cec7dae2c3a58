package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code bin/dht scan} prints for the API's chunks: one escaped line per entry. */
class ScanCommandTest {
    record Outcome(int exitCode, String stdout, String stderr) {
    }

    @Test
    void everyEntryIsOneLineWhateverItsBytes() throws Exception {
        String big = "x".repeat(100_000); // larger than Netty's default chunk piece (8 KiB): still one entry
        Outcome o = scanAgainst(200, List.of("k1\nv1", "tab\tkey\nline1\nline2\\end", "big\n" + big, "c\n\u0001", "empty\n"));
        assertThat(o.exitCode()).isEqualTo(0);
        assertThat(o.stdout()).isEqualTo("k1\tv1\n"
                + "tab\\tkey\tline1\\nline2\\\\end\n"
                + "big\t" + big + "\n"
                + "c\t\\x01\n"
                + "empty\t\n");
        assertThat(o.stderr()).isEmpty();
    }

    @Test
    void anErrorAnswerIsItsStatusAndReasonOnStderr() throws Exception {
        Outcome o = scanAgainst(400, List.of("missing or empty 'start'"));
        assertThat(o.exitCode()).isEqualTo(1);
        assertThat(o.stdout()).isEmpty();
        assertThat(o.stderr().strip()).isEqualTo("400 missing or empty 'start'");
    }

    @Test
    void optionsThatDoNotApplyAreRefused() throws Exception {
        assertThat(run(List.of("scan", "a", "--from", "2", "--url", "http://127.0.0.1:1")).exitCode()).isEqualTo(2);
        Outcome local = run(List.of("scan", "a", "--local", "--ack", "2", "--url", "http://127.0.0.1:1"));
        assertThat(local.exitCode()).isEqualTo(2);
        assertThat(local.stderr()).contains("--ack does not apply to --local");
    }

    @Test
    void helpListsOnlyTheOptionsTheCommandTakes() throws Exception {
        Outcome scan = run(List.of("scan", "--help"));
        assertThat(scan.exitCode()).isZero();
        assertThat(scan.stdout()).contains("--url").contains("--ack").contains("--local").doesNotContain("--from");
        for (String command : List.of("get", "put", "delete")) {
            assertThat(run(List.of(command, "--help")).stdout()).as(command).contains("--ack").contains("--from");
        }
    }

    @Test
    void aUrlThatIsNoUrlIsBadUsage() throws Exception {
        Outcome o = run(List.of("get", "k", "--url", "notaurl"));
        assertThat(o.exitCode()).isEqualTo(2);
        // the answer to any bad option: the reason, then where the usage is; no stack trace
        assertThat(o.stderr()).startsWith("--url must look like http://host:port, got 'notaurl'").doesNotContain("\tat ");
    }

    /** A fake node that answers one scan with {@code status} and one chunk per element of {@code chunks}. */
    private static Outcome scanAgainst(int status, List<String> chunks) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread.ofPlatform().daemon().start(() -> {
                try (Socket s = server.accept()) {
                    var in = new java.io.BufferedReader(new java.io.InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
                    for (String line; (line = in.readLine()) != null && !line.isEmpty(); ) { }
                    var out = s.getOutputStream();
                    out.write(("HTTP/1.1 " + status + " X\r\nTransfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    for (String c : chunks) {
                        byte[] b = c.getBytes(StandardCharsets.UTF_8);
                        out.write((Integer.toHexString(b.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(b);
                        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                } catch (IOException e) {
                    // the test fails on its own assertions
                }
            });
            return run(List.of("scan", "a", "--url", "http://127.0.0.1:" + server.getLocalPort()));
        }
    }

    private static Outcome run(List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream savedErr = System.err;
        PrintStream savedOut = System.out;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8); PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            System.setErr(e);
            int code = Main.commandLine().setErr(new PrintWriter(e, true)).setOut(new PrintWriter(o, true))
                    .execute(new ArrayList<>(args).toArray(String[]::new));
            return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(savedErr);
            System.setOut(savedOut);
        }
    }
}
