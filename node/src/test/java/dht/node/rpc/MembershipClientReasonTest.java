package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.Test;

/** What `bin/dht leave`, `remove` and `serve --join` print when a node refuses: its reason, or a summary of what answered instead. */
class MembershipClientReasonTest {
    private static HttpResponse<byte[]> answer(int status, String contentType, String body) {
        HttpHeaders headers = HttpHeaders.of(Map.of("Content-Type", List.of(contentType)), (a, b) -> true);
        return new HttpResponse<>() {
            @Override
            public int statusCode() {
                return status;
            }

            @Override
            public HttpHeaders headers() {
                return headers;
            }

            @Override
            public byte[] body() {
                return body.getBytes(StandardCharsets.UTF_8);
            }

            @Override
            public HttpRequest request() {
                return null;
            }

            @Override
            public Optional<HttpResponse<byte[]>> previousResponse() {
                return Optional.empty();
            }

            @Override
            public Optional<SSLSession> sslSession() {
                return Optional.empty();
            }

            @Override
            public URI uri() {
                return URI.create("http://n:1/");
            }

            @Override
            public HttpClient.Version version() {
                return HttpClient.Version.HTTP_1_1;
            }
        };
    }

    @Test
    void aNodesReasonIsPrintedAsItIs() {
        assertThat(MembershipClient.reason("http://n:1", answer(409, "text/plain; charset=utf-8",
                "http://m:1 is already a member\n"))).isEqualTo("http://m:1 is already a member");
        assertThat(MembershipClient.reason("http://n:1", answer(503, "", "busy"))).as("a short line of no stated type")
                .isEqualTo("busy");
    }

    @Test
    void aWebPageOrAnEmptyAnswerIsSummedUp() {
        String html = "<!DOCTYPE HTML>\n<html>\n<head><title>Error response</title></head>\n<body>\n<h1>404</h1>\n</body>\n</html>\n";
        assertThat(MembershipClient.reason("http://n:1", answer(404, "text/html", html)))
                .isEqualTo("http://n:1 answered HTTP 404 without a dht reason (is it a dht node?)");
        assertThat(MembershipClient.reason("http://n:1", answer(404, "text/plain", html))).as("many lines")
                .startsWith("http://n:1 answered HTTP 404");
        assertThat(MembershipClient.reason("http://n:1", answer(502, "text/plain", ""))).startsWith("http://n:1 answered HTTP 502");
    }
}
