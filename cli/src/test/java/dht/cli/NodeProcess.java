package dht.cli;

import dht.testkit.TestPorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code dht serve} process for tests: the same JVM binary and class path as the test, its
 * output captured in a file, helpers to kill (SIGKILL), terminate (SIGTERM), freeze (SIGSTOP) and
 * thaw it. Always {@link #close()} it (kills what is still running).
 */
final class NodeProcess implements AutoCloseable {
    final String host;
    final int port;
    final Path data;
    final Path log;
    final List<String> extraArgs;
    private final List<String> launcher;
    private Process process;
    /** Null: the node speaks plain HTTP; else HTTPS, its certificate checked with this context. */
    private javax.net.ssl.SSLContext tls;

    NodeProcess(int port, Path data, List<String> extraArgs) {
        this("localhost", List.of(), port, data, extraArgs);
    }

    /**
     * A node reached at {@code host}, its JVM started through {@code launcher} (for example
     * {@code ip netns exec NS}, which runs the JVM as the same process, so signals reach it).
     */
    NodeProcess(String host, List<String> launcher, int port, Path data, List<String> extraArgs) {
        this.host = host;
        this.launcher = List.copyOf(launcher);
        this.port = port;
        this.data = data;
        this.extraArgs = List.copyOf(extraArgs);
        this.log = data.resolveSibling(data.getFileName() + "-" + port + ".log");
    }

    /**
     * A cluster of {@code n} nodes with data under {@code dir}, each listing all: added to
     * {@code into} before any starts (so that the caller closes even those of a failed start), then
     * started together and awaited until each is ready. Anti-entropy is off, so that what a test
     * sees is what the mechanism it tests (read repair, hints, the operator's repair) did.
     */
    static void startCluster(List<NodeProcess> into, Path dir, int n, String... jvmOptions) throws Exception {
        startCluster(into, dir, n, List.of("--anti-entropy-interval", "0"), jvmOptions);
    }

    /** As above, with {@code nodeArgs} for each node instead of anti-entropy off. */
    static void startCluster(List<NodeProcess> into, Path dir, int n, List<String> nodeArgs, String... jvmOptions) throws Exception {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < n; i++) ports.add(TestPorts.free());
        String cluster = String.join(",", ports.stream().map(p -> "http://localhost:" + p).toList());
        List<NodeProcess> started = new ArrayList<>();
        for (int i = 0; i < n; i++) started.add(new NodeProcess(ports.get(i), dir.resolve("n" + i),
                concat(List.of("--cluster", cluster), nodeArgs)));
        into.addAll(started);
        for (NodeProcess p : started) p.start(jvmOptions);
        for (NodeProcess p : started) p.awaitReady(Duration.ofSeconds(60));
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    String url() {
        return (tls == null ? "http://" : "https://") + host + ":" + port;
    }

    /** The node speaks HTTPS (its flags say so): its URL is https://, and readiness is checked with {@code trust}. */
    NodeProcess https(javax.net.ssl.SSLContext trust) {
        this.tls = trust;
        return this;
    }

    /** Starts the process (not waiting for it to be ready). */
    NodeProcess start(String... jvmOptions) throws IOException {
        List<String> cmd = new ArrayList<>(launcher);
        cmd.add(ProcessHandle.current().info().command().orElseThrow());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("--sun-misc-unsafe-memory-access=allow");
        cmd.add("-Xmx128m");
        cmd.addAll(List.of(jvmOptions));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve",
                "--port", String.valueOf(port), "--data", data.toString()));
        cmd.addAll(extraArgs);
        Files.createDirectories(log.getParent());
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        return this;
    }

    /** Starts and waits until {@code GET /v0/status} answers 200. */
    NodeProcess startAndAwait(String... jvmOptions) throws Exception {
        start(jvmOptions);
        awaitReady(Duration.ofSeconds(60));
        return this;
    }

    void awaitReady(Duration timeout) throws Exception {
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500));
        if (tls != null) b.sslContext(tls);
        HttpClient client = b.build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("node on port " + port + " exited with " + process.exitValue()
                        + "; its output:\n" + output());
            }
            try {
                HttpResponse<Void> r = client.send(HttpRequest.newBuilder(URI.create(url() + "/v0/status"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) return;
            } catch (IOException e) {
                // not yet listening
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("node on port " + port + " not ready in " + timeout + "; output:\n" + output());
    }

    Process process() {
        return process;
    }

    String output() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGTERM; returns the exit code, or -1 if it did not exit within the timeout. */
    int terminate(Duration timeout) throws InterruptedException {
        process.destroy();
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    void freeze() throws Exception {
        signal("STOP");
    }

    void thaw() throws Exception {
        signal("CONT");
    }

    private void signal(String name) throws Exception {
        int rc = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).inheritIO().start().waitFor();
        if (rc != 0) throw new IllegalStateException("kill -" + name + " failed: " + rc);
    }

    @Override
    public void close() throws Exception {
        if (process != null && process.isAlive()) {
            signal("CONT");
            kill();
        }
    }
}
