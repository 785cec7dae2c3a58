package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** {@code dht args...} run as its own JVM with the test's class path, as a user runs it: exit code, stdout, stderr. */
record DhtRun(int exitCode, String stdout, String stderr) {
    static DhtRun of(Duration limit, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).start();
        // both pipes drained at once: a full stderr pipe would stall a process whose stdout is read first
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getErrorStream().readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)).as("dht %s exited", List.of(args)).isTrue();
        return new DhtRun(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err.join(), StandardCharsets.UTF_8));
    }
}
