package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Real {@code dht serve} processes: the cluster secret, the admin token, and the cut after a 413. */
class TrustBoundariesProcessTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private Path secretFile(String name, String perms) throws Exception {
        Path f = tmp.resolve(name);
        Files.writeString(f, "0123456789abcdef0123456789abcdef\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(perms));
        return f;
    }

    private HttpResponse<String> send(String url, String method, String pathAndQuery, String body, String... headers)
            throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url + pathAndQuery)).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) r.headers(headers);
        return client.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aSecretFileOthersMayReadIsRefused() throws Exception {
        Path open = secretFile("open-secret", "rw-r--r--");
        Path data = tmp.resolve("data");
        DhtRun run = DhtRun.of(Duration.ofSeconds(60), "serve", "--port", String.valueOf(TestPorts.free()),
                "--data", data.toString(), "--cluster-secret-file", open.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        // one line of its own (the JVM may add warnings of its own before it)
        assertThat(run.stderr().lines().filter(l -> l.startsWith("dht serve:"))).hasSize(1);
        assertThat(run.stderr()).contains("group or others").contains("chmod 600");
        assertThat(data).doesNotExist();
    }

    @Test
    void aBindAddressThatIsNoAddressIsBadUsage() throws Exception {
        DhtRun run = DhtRun.of(Duration.ofSeconds(60), "serve", "--port", String.valueOf(TestPorts.free()),
                "--data", tmp.resolve("data").toString(), "--bind", "no-such-host.invalid");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.stderr()).contains("--bind no-such-host.invalid");
        assertThat(tmp.resolve("data")).doesNotExist();
    }

    @Test
    void internalRequestsWithoutTheSecretChangeNothing() throws Exception {
        Path secret = secretFile("secret", "rw-------");
        List<Integer> ports = List.of(TestPorts.free(), TestPorts.free(), TestPorts.free());
        String members = String.join(",", ports.stream().map(p -> "http://localhost:" + p).toList());
        for (int i = 0; i < 3; i++) {
            cluster.nodes.add(new NodeProcess(ports.get(i), tmp.resolve("n" + i),
                    List.of("--cluster", members, "--cluster-secret-file", secret.toString())));
        }
        for (NodeProcess n : cluster.nodes) n.start();
        for (NodeProcess n : cluster.nodes) n.awaitReady(Duration.ofSeconds(60));
        String url = cluster.nodes.get(0).url();
        String ts = Long.toString(System.currentTimeMillis() * 1000);
        assertThat(send(url, "PUT", "/internal/v0/entity?id=k", "forged", "X-Dht-Timestamp", ts).statusCode()).isEqualTo(401);
        assertThat(send(url, "PUT", "/internal/v0/entity?id=k", "forged", "X-Dht-Timestamp", ts,
                "X-Dht-Auth", System.currentTimeMillis() + " AAAA").statusCode()).isEqualTo(403);
        assertThat(send(url, "GET", "/internal/v0/entity?id=k", null).statusCode()).isEqualTo(401);
        assertThat(send(url, "GET", "/v0/entity?id=k&ack=3", null).statusCode()).isEqualTo(404);
        // the nodes themselves replicate with it
        assertThat(send(url, "PUT", "/v0/entity?id=k&ack=3", "v").statusCode()).isEqualTo(201);
        assertThat(send(cluster.nodes.get(2).url(), "GET", "/v0/entity?id=k&ack=3", null).body()).isEqualTo("v");
        assertThat(send(url, "GET", "/v0/status", null).body()).contains("\"clusterSecret\":true");
        assertThat(cluster.nodes.get(0).output()).doesNotContain("no --cluster-secret-file");
        // the operator's repair reads the nodes' internal streams: with the secret only
        assertThat(DhtRun.of(Duration.ofSeconds(60), "repair", "--url", url).exitCode()).isEqualTo(1);
        DhtRun repair = DhtRun.of(Duration.ofSeconds(60), "repair", "--url", url, "--cluster-secret-file", secret.toString());
        assertThat(repair.exitCode()).as(repair.stderr()).isZero();
    }

    @Test
    void anAdminTokenHoldsForLoopbackClientsToo() throws Exception {
        NodeProcess n = new NodeProcess(TestPorts.free(), tmp.resolve("admin"), List.of("--admin-token", "s3cret"));
        cluster.nodes.add(n);
        n.startAndAwait();
        String profile = "/admin/profile?event=cpu&duration=100ms";
        assertThat(send(n.url(), "GET", profile, null).statusCode()).isEqualTo(403);
        assertThat(send(n.url(), "GET", profile, null, "Authorization", "Bearer wrong").statusCode()).isEqualTo(403);
        // with the token: past the check (200, or 503 where async-profiler cannot run here)
        assertThat(send(n.url(), "GET", profile, null, "Authorization", "Bearer s3cret").statusCode()).isIn(200, 503);
    }

    /** After its 413 the node drops at most about 1 MiB of a chunked body, then closes: the client cannot send it all. */
    @Test
    void anOversizedChunkedBodyIsCutOff() throws Exception {
        NodeProcess n = new NodeProcess(TestPorts.free(), tmp.resolve("cut"), List.of("--max-body", "1024"));
        cluster.nodes.add(n);
        n.startAndAwait();
        long total = 64L << 20;
        long sent = 0;
        byte[] chunk = ("10000\r\n" + "x".repeat(0x10000) + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        try (java.net.Socket s = new java.net.Socket("localhost", n.port)) {
            s.setSoTimeout(10_000);
            var out = s.getOutputStream();
            out.write(("PUT /v0/entity?id=huge HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            try {
                while (sent < total) {
                    out.write(chunk);
                    sent += 0x10000;
                }
            } catch (java.io.IOException e) {
                // the node closed the connection
            }
        }
        assertThat(sent).as("body bytes sent before the node closed the connection").isLessThan(total);
        assertThat(send(n.url(), "GET", "/v0/entity?id=huge", null).statusCode()).isEqualTo(404);
        assertThat(n.output()).contains("the refused body goes on past");
    }

    @Test
    void aClusterNodeWithoutASecretSaysSo() throws Exception {
        NodeProcess.startCluster(cluster.nodes, tmp, 2);
        assertThat(send(cluster.nodes.get(0).url(), "GET", "/v0/status", null).body()).contains("\"clusterSecret\":false");
        assertThat(cluster.nodes.get(0).output()).contains("no --cluster-secret-file");
    }
}
