package dht.cli;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node's {@code GET /v0/status} as the cluster launcher reads it: the body, and the few fields it
 * needs (a list of URLs, a number), found by name. URLs hold no quote, comma or bracket, so a list
 * field is the text between its brackets.
 */
final class StatusProbe {
    private StatusProbe() {
    }

    /** The status of the node at {@code url}, or null when it does not answer 200 within a second. */
    static String body(HttpClient client, String url) throws InterruptedException {
        try {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url + "/v0/status"))
                    .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null; // not listening yet, or gone
        }
    }

    /** Whether the status is that of process {@code pid}: another process on the port would answer too. */
    static boolean isOf(String body, long pid) {
        return body != null && body.contains("\"pid\":" + pid + ",");
    }

    /** The URLs of list field {@code field} ({@code members}, {@code joining}); empty when absent. */
    static List<String> urls(String body, String field) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(field) + "\":\\[([^\\]]*)\\]").matcher(body);
        if (!m.find() || m.group(1).isBlank()) return List.of();
        return Arrays.stream(m.group(1).split(",")).map(s -> s.strip().replace("\"", "")).toList();
    }

    /** Number field {@code field}, the first of that name; -1 when absent. */
    static long number(String body, String field) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(field) + "\":(-?\\d+)").matcher(body);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }
}
