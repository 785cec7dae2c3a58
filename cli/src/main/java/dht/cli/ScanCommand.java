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
        HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(URI.create(q.toString())).GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = r.body()) {
            if (r.statusCode() != 200) {
                System.err.println(r.statusCode() + " " + new String(in.readAllBytes()).strip());
                return 1;
            }
            try {
                in.transferTo(System.out);
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
}
