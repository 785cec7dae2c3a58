package dht.cli;

import dht.testkit.TestPorts;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The client commands against a node that is not there: one line on stderr, exit 1, no stack trace. */
class ClientUnreachableTest {

    record Outcome(int exitCode, String stderr) {
        List<String> lines() {
            return stderr.lines().toList();
        }
    }

    static Stream<List<String>> commands() {
        return Stream.of(List.of("get", "k"), List.of("put", "k", "v"), List.of("delete", "k"),
                List.of("scan", "a"), List.of("scan", "a", "z", "--cluster"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("commands")
    void refusedConnectionIsOneLineAndExitOne(List<String> command) throws Exception {
        String url = "http://127.0.0.1:" + TestPorts.free();

        Outcome o = run(command, url);

        assertOneCleanLine(o, url);
        assertThat(o.stderr()).contains("connection refused");
    }

    /** A frozen node: its kernel accepts the connection, nothing ever answers. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("commands")
    @org.junit.jupiter.api.Timeout(30) // before --timeout existed the command waited forever
    void aNodeThatNeverAnswersEndsTheCommandAfterTheTimeout(List<String> command) throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            String url = "http://127.0.0.1:" + silent.getLocalPort();
            List<String> withTimeout = new ArrayList<>(command);
            withTimeout.addAll(List.of("--timeout", "1"));
            long t0 = System.nanoTime();

            Outcome o = run(withTimeout, url);

            assertThat((System.nanoTime() - t0) / 1_000_000).as("ms").isLessThan(5_000);
            assertThat(o.exitCode()).isEqualTo(1);
            // Only a request that changes something may have taken effect; a read only asked.
            boolean changes = command.getFirst().equals("put") || command.getFirst().equals("delete");
            assertThat(o.lines()).containsExactly("dht: no answer from node " + url + " within 1 s"
                    + (changes ? " (the request may still have taken effect)" : ""));
        }
    }

    /** A node whose scan fails midway ends the answer without HTTP's last chunk. */
    @Test
    void aScanCutShortIsOneLineAndExitOne() throws Exception {
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            answerOneEntryThenStop(server, new java.util.concurrent.CountDownLatch(0)); // then closes
            String url = "http://127.0.0.1:" + server.getLocalPort();

            Outcome o = run(List.of("scan", "a"), url);

            assertThat(o.exitCode()).isEqualTo(1);
            assertThat(o.lines()).hasSize(1);
            assertThat(o.stderr()).startsWith("dht scan: the answer was cut short (node " + url + " closed the connection); the range is incomplete")
                    .doesNotContain("\tat ");
        }
    }

    /**
     * A node that freezes mid-scan: the head and one entry came, then nothing, and the connection
     * stays open. The command ends itself once nothing came for the timeout.
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aScanThatStallsMidStreamEndsAfterTheTimeout() throws Exception {
        try (java.net.ServerSocket server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
            answerOneEntryThenStop(server, done); // frozen: the connection stays open, nothing more comes
            String url = "http://127.0.0.1:" + server.getLocalPort();
            Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), "-cp",
                    System.getProperty("java.class.path"), Main.class.getName(), "scan", "a", "--url", url, "--timeout", "1")
                    .redirectErrorStream(false).start();
            try {
                assertThat(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).as("ends by itself").isTrue();
                assertThat(p.exitValue()).isEqualTo(1);
                assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("a\txyz\n");
                assertThat(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
                        .contains("dht scan: no data from node " + url + " for 1 s; the range is incomplete");
            } finally {
                p.destroyForcibly();
                done.countDown();
            }
        }
    }

    @Test
    void aTimeoutBelowOneSecondIsRefusedBeforeAnythingIsSent() throws Exception {
        Outcome o = run(List.of("get", "k", "--timeout", "0"), "http://127.0.0.1:1");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stderr()).contains("--timeout must be at least 1 second").doesNotContain("cannot reach");
    }

    /**
     * A fake node for one scan: reads the request head, sends the response head and one entry
     * without HTTP's last chunk, then holds the connection until {@code release} and closes it.
     */
    private static void answerOneEntryThenStop(java.net.ServerSocket server, java.util.concurrent.CountDownLatch release) {
        Thread.ofPlatform().daemon().start(() -> {
            try (java.net.Socket s = server.accept()) {
                var in = new java.io.BufferedReader(new java.io.InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
                for (String line; (line = in.readLine()) != null && !line.isEmpty(); ) { }
                s.getOutputStream().write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\na\nxyz\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                release.await();
            } catch (IOException | InterruptedException e) {
                // the test fails on its own assertions
            }
        });
    }

    @Test
    void unknownHostSaysSo() throws Exception {
        // .invalid is reserved (RFC 6761): it never resolves, and resolvers answer that at once.
        String url = "http://no-such-node.invalid:8080";

        Outcome o = run(List.of("get", "k"), url);

        assertOneCleanLine(o, url);
        assertThat(o.stderr()).contains("unknown host");
    }

    @Test
    void trailingSlashOfTheUrlIsNotEchoed() throws Exception {
        String url = "http://127.0.0.1:" + TestPorts.free();

        Outcome o = run(List.of("get", "k"), url + "/");

        assertThat(o.lines()).containsExactly("dht: cannot reach node " + url + " (connection refused)");
    }

    // A real connect timeout needs the client's full timeout to elapse; the shape of the JDK's
    // exception (timeout wrapping a ConnectException) is what could fool the classification.
    @Test
    void connectTimeoutIsNamedEvenThoughItCarriesAConnectException() {
        var timeout = chain(new HttpConnectTimeoutException("HTTP connect timed out"),
                new HttpConnectTimeoutException("HTTP connect timed out"), new ConnectException("HTTP connect timed out"));

        assertThat(new NodeUnreachableException("http://h:1", timeout).reason()).isEqualTo("connect timed out");
    }

    // The chains below are what the JDK 25 client throws for a refused port and an unknown host.
    @Test
    void reasonsOfTheJdkClientShapes() {
        var refused = chain(new ConnectException(), new ConnectException(), new ClosedChannelException());
        var unresolved = chain(new ConnectException(), new ConnectException(), new UnresolvedAddressException());
        var noRoute = new ConnectException("No route to host");

        assertThat(new NodeUnreachableException("u", refused).reason()).isEqualTo("connection refused");
        assertThat(new NodeUnreachableException("u", unresolved).reason()).isEqualTo("unknown host");
        assertThat(new NodeUnreachableException("u", noRoute).reason()).isEqualTo("no route to host");
    }

    private static <E extends IOException> E chain(E outer, Throwable... causes) {
        Throwable t = outer;
        for (Throwable c : causes) {
            t.initCause(c);
            t = c;
        }
        return outer;
    }

    private static void assertOneCleanLine(Outcome o, String url) {
        assertThat(o.exitCode()).as("exit code").isEqualTo(1);
        assertThat(o.lines()).as("stderr").hasSize(1);
        assertThat(o.stderr()).startsWith("dht: cannot reach node " + url + " (")
                .doesNotContain("Exception").doesNotContain("at dht.").doesNotContain("\tat ");
    }

    // Both picocli's writer and System.err go to one buffer, so a message printed either way counts.
    private static Outcome run(List<String> command, String url) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream savedErr = System.err;
        PrintStream savedOut = System.out;
        List<String> args = new ArrayList<>(command);
        args.add("--url");
        args.add(url);
        try (PrintStream capture = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setErr(capture);
            System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            int code = Main.commandLine()
                    .setErr(new PrintWriter(capture, true))
                    .setOut(new PrintWriter(System.out, true))
                    .execute(args.toArray(String[]::new));
            return new Outcome(code, err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(savedErr);
            System.setOut(savedOut);
        }
    }
}
