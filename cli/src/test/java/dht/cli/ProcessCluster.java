package dht.cli;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The real {@code dht serve} processes of one test, what it asks them with (the client library
 * through {@link #requests}, raw HTTP/1.1 through {@link #http}) and any client traffic it runs
 * against them. Registered with {@code @RegisterExtension}, it closes all of them after each
 * test: the traffic first, so that no request goes to a node already gone, then the client
 * library's clients, then the nodes (killing what still runs), then the HTTP client without waiting
 * for what it still has in flight. Each is closed even when one before it fails.
 */
final class ProcessCluster implements AfterEachCallback {
    /** The test's nodes: add each before it starts, so that a failed start is closed too. */
    final List<NodeProcess> nodes = new ArrayList<>();
    final NodeRequests requests = new NodeRequests();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final List<MembershipTraffic> traffic = new ArrayList<>();

    /** Client traffic through {@code targets}, not started yet; closed after the test. */
    MembershipTraffic traffic(List<NodeProcess> targets) {
        MembershipTraffic t = new MembershipTraffic(targets);
        traffic.add(t);
        return t;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        List<AutoCloseable> all = new ArrayList<>(traffic);
        all.add(requests);
        all.addAll(nodes);
        all.add(http::shutdownNow);
        Exception first = null;
        for (AutoCloseable c : all) {
            try {
                c.close();
            } catch (Exception e) {
                if (first == null) first = e;
                else first.addSuppressed(e);
            }
        }
        if (first != null) throw first;
    }
}
