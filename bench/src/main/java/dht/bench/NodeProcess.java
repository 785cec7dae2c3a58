package dht.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A node started with the launcher ({@code bin/dht serve}) for the reports: ready once
 * {@code GET /v0/status} answers 200; stopped with SIGTERM (then SIGKILL after 15 s).
 */
final class NodeProcess implements AutoCloseable {
    private final Process process;
    final String url;
    final Path log;

    private NodeProcess(Process process, String url, Path log) {
        this.process = process;
        this.url = url;
        this.log = log;
    }

    static NodeProcess start(Path launcher, int port, Path data, List<String> cluster, String javaOpts, Path log)
            throws IOException, InterruptedException {
        String self = "http://localhost:" + port;
        List<String> cmd = new ArrayList<>(List.of(launcher.toString(), "serve", "--port", Integer.toString(port),
                "--data", data.toString()));
        if (cluster != null && !cluster.isEmpty()) {
            cmd.addAll(List.of("--cluster", String.join(",", cluster), "--self", self));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        // The node stops when this JVM is gone, however it ends (its stdin, a pipe from here, closes):
        // a report stopped with SIGTERM or SIGKILL left its node holding the port for the next one.
        pb.environment().put("DHT_JAVA_OPTS", javaOpts + " -Ddht.exitWithParent=true");
        NodeProcess n = new NodeProcess(pb.start(), self, log);
        n.awaitReady(Duration.ofSeconds(120));
        return n;
    }

    private void awaitReady(Duration max) throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw BenchException.atRunTime("node on " + url + " exited with " + process.exitValue() + "; see " + log);
            }
            try {
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(url + "/v0/status"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        close();
        throw BenchException.atRunTime("node on " + url + " not ready after " + max.toSeconds() + "s; see " + log);
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        process.destroy(); // SIGTERM: graceful stop
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
