package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dht.node.rpc.CaTrust;
import dht.testkit.TestCa;
import dht.testkit.TestPorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Membership changes on a cluster that speaks HTTPS only, with a cluster secret, as real
 * {@code dht serve} processes: a fourth node joins through {@code --join https://...} and serves
 * the keys written before; {@code bin/dht leave} and {@code remove} reach the nodes over TLS,
 * checking their certificates with {@code --tls-ca}, and without it are refused.
 */
class TlsMembershipProcessTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final ProcessCluster cluster = new ProcessCluster();

    @Test
    void aFourthNodeJoinsOverHttpsServesOldKeysAndLeavesAgain() throws Exception {
        TestCa ca = TestCa.create(tmp.resolve("ca"));
        SSLContext trust = CaTrust.context(ca.ca());
        Path secret = tmp.resolve("secret");
        Files.writeString(secret, "0123456789abcdef0123456789abcdef\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        List<String> flags = new ArrayList<>(ca.serveFlags());
        flags.addAll(List.of("--cluster-secret-file", secret.toString(), "--anti-entropy-interval", "0"));

        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < 3; i++) ports.add(TestPorts.free());
        String members = String.join(",", ports.stream().map(p -> "https://localhost:" + p).toList());
        for (int i = 0; i < 3; i++) {
            List<String> args = new ArrayList<>(List.of("--cluster", members));
            args.addAll(flags);
            cluster.nodes.add(new NodeProcess(ports.get(i), tmp.resolve("n" + i), args).https(trust));
        }
        for (NodeProcess n : cluster.nodes) n.start();
        for (NodeProcess n : cluster.nodes) n.awaitReady(Duration.ofSeconds(60));

        HttpClient https = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(trust)
                .connectTimeout(Duration.ofSeconds(5)).build();
        for (int k = 0; k < 200; k++) {
            HttpResponse<String> r = https.send(HttpRequest.newBuilder(
                    URI.create(cluster.nodes.get(k % 3).url() + "/v0/entity?id=key" + k))
                    .timeout(Duration.ofSeconds(10)).PUT(HttpRequest.BodyPublishers.ofString("v" + k)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        }

        List<String> joinArgs = new ArrayList<>(List.of("--join", cluster.nodes.get(1).url()));
        joinArgs.addAll(flags);
        NodeProcess fourth = new NodeProcess(TestPorts.free(), tmp.resolve("n3"), joinArgs).https(trust);
        cluster.nodes.add(fourth);
        fourth.startAndAwait();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!status(https, fourth).contains("\"joining\":[]") && System.nanoTime() < deadline) Thread.sleep(200);
        String joined = status(https, fourth);
        assertThat(joined).contains("\"membershipVersion\":3", "\"joining\":[]", "\"" + fourth.url() + "\"");
        assertThat(joined).matches("(?s).*\"keysMoved\":[1-9].*");
        for (int k = 0; k < 200; k++) {
            HttpResponse<String> r = https.send(HttpRequest.newBuilder(URI.create(fourth.url() + "/v0/entity?id=key" + k))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).as("key%d through the new node", k).isEqualTo("v" + k);
        }

        // Without the CA the node's certificate is not trusted: refused before anything is asked.
        DhtRun untrusted = DhtRun.of(Duration.ofSeconds(60), "leave", "--url", fourth.url(),
                "--cluster-secret-file", secret.toString());
        assertThat(untrusted.exitCode()).isEqualTo(1);
        assertThat(untrusted.stderr()).contains("did not answer", "nothing changed").doesNotContain("HTTP 503");
        DhtRun stranger = DhtRun.of(Duration.ofSeconds(60), "remove", "--url", "https://localhost:1",
                "--via", cluster.nodes.get(0).url(), "--tls-ca", ca.ca().toString(), "--cluster-secret-file", secret.toString());
        assertThat(stranger.exitCode()).isEqualTo(1);
        assertThat(stranger.stderr()).contains("is not a member");

        DhtRun left = DhtRun.of(Duration.ofSeconds(120), "leave", "--url", fourth.url(), "--tls-ca", ca.ca().toString(),
                "--cluster-secret-file", secret.toString());
        assertThat(left.exitCode()).as(left.stderr()).isZero();
        assertThat(left.stdout()).contains("membership version 5");
        assertThat(fourth.process().waitFor(30, TimeUnit.SECONDS)).as("the process of the node that left ends").isTrue();
        for (int i = 0; i < 3; i++) assertThat(status(https, cluster.nodes.get(i))).contains("\"membershipVersion\":5");
        for (int k = 0; k < 200; k += 3) {
            HttpResponse<String> r = https.send(HttpRequest.newBuilder(
                    URI.create(cluster.nodes.get(k % 3).url() + "/v0/entity?id=key" + k))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).isEqualTo("v" + k);
        }
    }

    private static String status(HttpClient https, NodeProcess n) throws Exception {
        return https.send(HttpRequest.newBuilder(URI.create(n.url() + "/v0/status")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }
}
