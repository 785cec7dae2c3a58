package dht.cli;

import dht.node.cluster.Membership;
import dht.node.cluster.MembershipChangeException;
import dht.node.rpc.MembershipClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One membership operation ({@code leave}, {@code remove}) asked of a node, as {@code bin/dht leave}
 * and {@code bin/dht remove} send it: exit 0 with the new membership on stdout, 1 with the
 * node's reason on stderr and what it left (mostly nothing changed; a leave that failed moving its
 * data is under way), 2 for bad usage.
 */
final class MembershipCall {
    private MembershipCall() {
    }

    static int run(String command, String op, String node, String url, Path secretFile, Path tlsCa, long timeoutSeconds) {
        String target;
        String about;
        try {
            target = ServeCommand.normalize(node);
            about = ServeCommand.normalize(url);
        } catch (IllegalArgumentException e) {
            return Main.usageError(command, e.getMessage());
        }
        if (timeoutSeconds < 1) return Main.usageError(command, "--timeout must be positive, got " + timeoutSeconds);
        dht.node.rpc.ClusterSecret secret = null;
        try {
            if (secretFile != null) secret = ClusterSecretFile.read(secretFile);
        } catch (ClusterSecretFile.Refused e) {
            return Main.usageError(command, e.getMessage());
        }
        javax.net.ssl.SSLContext tls;
        try {
            tls = tlsCa == null ? null : dht.node.rpc.CaTrust.context(tlsCa);
        } catch (IllegalArgumentException e) {
            return Main.usageError(command, "--tls-ca: " + e.getMessage());
        }
        MembershipClient client = new MembershipClient(Duration.ofSeconds(timeoutSeconds), secret, tls);
        long giveUpAt = System.nanoTime() + Duration.ofSeconds(Math.min(timeoutSeconds, STILL_SEEN_UP_SECONDS)).toNanos();
        try {
            byte[] answer;
            while (true) {
                try {
                    answer = client.call(target, op, "url=" + URLEncoder.encode(about, StandardCharsets.UTF_8), new byte[0]);
                    break;
                } catch (MembershipChangeException e) {
                    // A node killed a moment ago is still up to the member until its failure detector
                    // hears nothing (about a second): if nothing answers at its URL, ask again.
                    if (!op.equals("remove") || e.status() != 409 || !e.getMessage().contains(" is up: ")
                            || System.nanoTime() > giveUpAt || answers(about, tls)) {
                        throw e;
                    }
                    System.err.println("dht " + command + ": " + about + " does not answer, but " + target
                            + " still sees it up; asking again in 1 s");
                    Thread.sleep(1000);
                }
            }
            Membership m = Membership.decode(new String(answer, StandardCharsets.UTF_8));
            System.out.println("membership version " + m.version() + ": members " + String.join(",", m.members())
                    + ", replication factor " + m.replicationFactor());
            return 0;
        } catch (MembershipChangeException e) {
            String left = switch (e.outcome()) {
                case NOTHING_CHANGED -> "nothing changed";
                case UNDER_WAY -> "the change is under way: the same command again goes on with it";
                case UNKNOWN -> "whether anything changed is not known: see " + target + "/v0/status";
            };
            System.err.println("dht " + command + ": " + e.getMessage() + (e.answered() ? " (HTTP " + e.status() + ")" : "") + "; " + left);
            return 1;
        } catch (IllegalArgumentException e) {
            System.err.println("dht " + command + ": " + target + " did not answer a membership: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.err.println("dht " + command + ": interrupted; whether anything changed is not known: see " + target + "/v0/status");
            return 1;
        }
    }

    /** How long a removal refused because the member still sees a silent node up is asked again. */
    private static final long STILL_SEEN_UP_SECONDS = 15;

    /** Whether anything answers HTTP at {@code url} within a second or two (a refusal or a TLS error counts as an answer). */
    private static boolean answers(String url, javax.net.ssl.SSLContext tls) {
        java.net.http.HttpClient.Builder b = java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1));
        if (tls != null) b.sslContext(tls);
        try (java.net.http.HttpClient http = b.build()) {
            http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url + "/v0/status"))
                    .timeout(Duration.ofSeconds(2)).build(), java.net.http.HttpResponse.BodyHandlers.discarding());
            return true;
        } catch (java.net.ConnectException | java.net.http.HttpTimeoutException e) {
            return false;
        } catch (java.io.IOException | RuntimeException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}
