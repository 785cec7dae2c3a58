package dht.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/** What the cluster process tests ask a node over HTTP: writes with a quorum, and a node's own data. */
final class NodeRequests {
    private NodeRequests() {
    }

    /** A PUT of {@code value}, or a DELETE when it is null, with {@code ack} of {@code from}; the status code. */
    static int write(HttpClient http, NodeProcess n, String key, String value, int ack, int from) throws Exception {
        URI uri = URI.create(n.url() + "/v0/entity?id=" + URLEncoder.encode(key, StandardCharsets.UTF_8) + "&ack=" + ack + "&from=" + from);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20));
        b = value == null ? b.DELETE() : b.PUT(HttpRequest.BodyPublishers.ofString(value));
        return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** The node's own data ({@code scope=local}), key to value; every value written by these tests ends with ';' to split on. */
    static Map<String, String> local(HttpClient http, NodeProcess n) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(n.url() + "/v0/entities?start=%00&scope=local"))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        Map<String, String> out = new TreeMap<>();
        for (String e : r.body().split(";")) {
            if (e.isEmpty()) continue;
            int nl = e.indexOf('\n');
            out.put(e.substring(0, nl), e.substring(nl + 1));
        }
        return out;
    }
}
