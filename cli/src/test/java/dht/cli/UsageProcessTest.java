package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Exit codes and streams of {@code dht} itself, in a real process (System.exit included): asking for
 * help is success, on stdout; naming no mode at all is bad usage, on stderr, like an unknown option.
 */
class UsageProcessTest {
    record Outcome(int exitCode, String stdout, String stderr) {
    }

    @Test
    void noCommandIsBadUsageWithTheUsageOnStderr() throws Exception {
        Outcome o = dht();
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stdout()).isEmpty();
        assertThat(o.stderr()).contains("Missing required subcommand").contains("Usage: dht").contains("serve");
    }

    @Test
    void helpIsSuccessWithTheUsageOnStdout() throws Exception {
        for (String help : List.of("--help", "-h", "help")) {
            Outcome o = dht(help);
            assertThat(o.exitCode()).as(help).isZero();
            assertThat(o.stdout()).as(help).startsWith("Usage: dht").contains("serve");
            assertThat(o.stderr()).as(help).isEmpty();
        }
    }

    @Test
    void anUnknownOptionIsBadUsageAsBefore() throws Exception {
        Outcome o = dht("--no-such-option");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.stdout()).isEmpty();
        assertThat(o.stderr()).contains("Unknown option: '--no-such-option'").contains("Usage: dht");
    }

    /** Runs {@code dht args...} as its own JVM, with the test's class path. */
    private static Outcome dht(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).start();
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getErrorStream().readAllBytes();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("dht %s exited", List.of(args)).isTrue();
        return new Outcome(p.exitValue(), new String(out, StandardCharsets.UTF_8),
                new String(err.join(), StandardCharsets.UTF_8));
    }
}
