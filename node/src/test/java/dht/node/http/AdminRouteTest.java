package dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Who may use admin endpoints, and how durations read. */
class AdminRouteTest {
    static InetSocketAddress from(String ip) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(ip), 40000);
    }

    @Test
    void withoutATokenLoopbackOnlyWithOneTheTokenForEveryone() throws Exception {
        AdminRoute noToken = new AdminRoute(null, null);
        assertThat(noToken.allowed(from("127.0.0.1"), null)).isTrue();
        assertThat(noToken.allowed(from("::1"), null)).isTrue();
        assertThat(noToken.allowed(from("10.1.2.3"), null)).isFalse();
        assertThat(noToken.allowed(from("10.1.2.3"), "Bearer ")).isFalse();

        AdminRoute withToken = new AdminRoute(null, "s3cret");
        assertThat(withToken.allowed(from("10.1.2.3"), "Bearer s3cret")).isTrue();
        assertThat(withToken.allowed(from("10.1.2.3"), "Bearer s3cre")).isFalse();
        assertThat(withToken.allowed(from("10.1.2.3"), "s3cret")).isFalse();
        assertThat(withToken.allowed(from("10.1.2.3"), null)).isFalse();
        assertThat(withToken.allowed(from("127.0.0.1"), null)).isFalse();
        assertThat(withToken.allowed(from("127.0.0.1"), "Bearer wrong")).isFalse();
        assertThat(withToken.allowed(from("::1"), null)).isFalse();
        assertThat(withToken.allowed(from("127.0.0.1"), "Bearer s3cret")).isTrue();
        assertThat(withToken.allowed(from("10.1.2.3"), "bearer s3cret")).as("the scheme without case").isTrue();
        assertThat(withToken.allowed(from("10.1.2.3"), "BEARER s3cret")).isTrue();
        assertThat(withToken.allowed(from("10.1.2.3"), "Bearer S3CRET")).as("the token exactly").isFalse();
        assertThat(withToken.allowed(from("10.1.2.3"), "Bear")).isFalse();
    }

    @Test
    void durations() throws Exception {
        assertThat(AdminRoute.parseDuration("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(AdminRoute.parseDuration("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(AdminRoute.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(AdminRoute.parseDuration("7")).isEqualTo(Duration.ofSeconds(7));
        for (String bad : new String[] {"", "s", "-1s", "1h", "1.5s", "10 s"}) {
            assertThatThrownBy(() -> AdminRoute.parseDuration(bad)).isInstanceOf(BadRequestException.class);
        }
    }
}
