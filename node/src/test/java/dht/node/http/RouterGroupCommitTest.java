package dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which requests may share a group commit: the route of their path says, and only entity writes do. */
class RouterGroupCommitTest {
    private final Admission admission = new Admission(4, 1, 1 << 20);
    private final Router router = new Router(Map.of(
            "/v0/entity", new EntityRoute(null, 1, admission),
            "/v0/status", new StatusRoute(() -> "{}", admission)));

    private boolean shares(HttpMethod method, String uri) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri);
        try {
            return router.mayShareGroupCommit(request);
        } finally {
            request.release();
        }
    }

    @Test
    void entityWritesMayShareAGroupCommit() {
        assertThat(shares(HttpMethod.PUT, "/v0/entity?id=k")).isTrue();
        assertThat(shares(HttpMethod.DELETE, "/v0/entity?id=k")).isTrue();
        assertThat(shares(HttpMethod.PUT, "/v0/entity")).isTrue();
        assertThat(shares(HttpMethod.PUT, "http://host:8080/v0/entity?id=k")).as("the absolute form").isTrue();
    }

    @Test
    void nothingElseDoes() {
        assertThat(shares(HttpMethod.GET, "/v0/entity?id=k")).isFalse();
        assertThat(shares(HttpMethod.POST, "/v0/entity?id=k")).isFalse();
        assertThat(shares(HttpMethod.PUT, "/v0/entityx?id=k")).isFalse();
        assertThat(shares(HttpMethod.PUT, "/v0/status")).isFalse();
        assertThat(shares(HttpMethod.PUT, "/v0/entit?id=k")).isFalse();
        assertThat(shares(HttpMethod.PUT, "/v0/entities?id=k")).isFalse();
        assertThat(shares(HttpMethod.PUT, "/nowhere")).as("an unknown path").isFalse();
        assertThat(shares(HttpMethod.PUT, "/v0/entity#frag")).as("a raw '#', refused (400)").isFalse();
        assertThat(shares(HttpMethod.PUT, "/v0/entity?id=\u0001")).as("a target the router refuses").isFalse();
    }
}
