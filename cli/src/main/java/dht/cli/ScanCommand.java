package dht.cli;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bin/dht scan START [END]}: streams the range to stdout as the API sends it, one entry per
 * chunk ({@code key \n value}): on a cluster node the whole cluster's data, merged (with
 * {@code --local}, that node's own data alone).
 */
@Command(name = "scan", mixinStandardHelpOptions = true,
        description = "Stream the entries with START <= key < END to stdout (key, newline, value per entry).")
final class ScanCommand implements Callable<Integer> {
    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "START")
    String start;

    @Parameters(index = "1", arity = "0..1", paramLabel = "END")
    String end;

    @Option(names = "--cluster", description = "Scan the whole cluster (scope=cluster; a cluster node's default).")
    boolean clusterScope;

    @Option(names = "--local", description = "Scan only the asked node's own data (scope=local).")
    boolean localScope;

    @Override
    public Integer call() throws Exception {
        StringBuilder q = new StringBuilder(client.base()).append("/v0/entities?start=").append(ClientOptions.encode(start));
        if (end != null) q.append("&end=").append(ClientOptions.encode(end));
        if (clusterScope && localScope) {
            System.err.println("dht scan: --cluster and --local exclude each other");
            return 2;
        }
        if (clusterScope) q.append("&scope=cluster");
        if (localScope) q.append("&scope=local");
        else if (client.ack != null) q.append("&ack=").append(client.ack);
        HttpResponse<InputStream> r = client.sendStreaming(HttpRequest.newBuilder(URI.create(q.toString())).GET().build());
        try (InputStream in = r.body()) {
            if (r.statusCode() != 200) {
                System.err.println(r.statusCode() + " " + new String(in.readAllBytes()).strip());
                return 1;
            }
            try {
                copyWithIdleLimit(in);
            } catch (java.io.IOException e) {
                // The node ends a scan that failed midway without HTTP's last chunk: the entries
                // already printed are real, but the range is not complete, and the exit code says so.
                System.out.flush();
                System.err.println("dht scan: the answer was cut short, the range is incomplete (" + e.getMessage() + ")");
                return 1;
            }
            System.out.flush();
        }
        return 0;
    }

    /**
     * Copies the body to stdout; a node that freezes mid-stream sends nothing more and never
     * closes, so a watchdog ends the command once no bytes came for the timeout. A long scan that
     * keeps streaming is never cut.
     */
    private void copyWithIdleLimit(InputStream in) throws java.io.IOException {
        long limitNanos = java.util.concurrent.TimeUnit.SECONDS.toNanos(client.timeoutSeconds);
        java.util.concurrent.atomic.AtomicLong lastBytes = new java.util.concurrent.atomic.AtomicLong(System.nanoTime());
        Thread watchdog = Thread.ofPlatform().daemon().name("scan-idle").start(() -> {
            try {
                while (true) {
                    Thread.sleep(200);
                    if (System.nanoTime() - lastBytes.get() > limitNanos) {
                        System.out.flush();
                        System.err.println("dht scan: no data from node " + client.base() + " for " + client.timeoutSeconds
                                + " s; the range is incomplete");
                        System.err.flush();
                        Runtime.getRuntime().halt(1); // the reading thread cannot be woken from its read
                    }
                }
            } catch (InterruptedException e) {
                // the copy ended
            }
        });
        try {
            byte[] buf = new byte[64 * 1024];
            for (int n; (n = in.read(buf)) >= 0; ) {
                lastBytes.set(System.nanoTime());
                System.out.write(buf, 0, n);
            }
        } finally {
            watchdog.interrupt();
        }
    }
}
