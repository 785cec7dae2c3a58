package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Both proofs: a request's holds for its method, target, version headers and body; an answer's for
 * that answer (status, version headers, body) to that request only; each only with the secret.
 */
class ClusterSecretAnswerTest {
    private static final ClusterSecret SECRET = new ClusterSecret("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    private static final ClusterSecret OTHER = new ClusterSecret("fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII));

    private static final ClusterSecret.Headers NONE = ClusterSecret.Headers.NONE;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aCompleteAnswerIsProvenForItsRequestStatusAndBodyAlone() {
        String request = SECRET.sign("GET", "/internal/v0/entity?id=k", new byte[0], 1_000);
        String proof = SECRET.answer(request, 200, NONE, Unpooled.wrappedBuffer(bytes("value")));
        assertThat(SECRET.provesAnswer(request, 200, NONE, bytes("value"), proof)).isTrue();
        assertThat(SECRET.provesAnswer(request, 200, NONE, bytes("forged"), proof)).as("another body").isFalse();
        assertThat(SECRET.provesAnswer(request, 404, NONE, bytes("value"), proof)).as("another status").isFalse();
        String other = SECRET.sign("GET", "/internal/v0/entity?id=j", new byte[0], 1_000);
        assertThat(SECRET.provesAnswer(other, 200, NONE, bytes("value"), proof)).as("another request").isFalse();
        assertThat(SECRET.provesAnswer(request, 200, NONE, bytes("value"), OTHER.answer(request, 200, NONE, Unpooled.wrappedBuffer(bytes("value")))))
                .as("another secret").isFalse();
        assertThat(SECRET.provesAnswer(request, 200, NONE, bytes("value"), null)).as("no proof").isFalse();
        assertThat(SECRET.provesAnswer(request, 200, NONE, bytes("value"), "")).isFalse();
    }

    /** A replica's answer to a read: its version travels in headers, beside the value in the body. */
    private static ClusterSecret.Headers version(String timestamp, String tombstone, String expiry) {
        DefaultHttpHeaders h = new DefaultHttpHeaders();
        h.set("X-Dht-Timestamp", timestamp).set("X-Dht-Tombstone", tombstone).set("X-Dht-Clock", "5");
        if (expiry != null) h.set("X-Dht-Expiry", expiry);
        return ClusterSecret.Headers.of(h);
    }

    @Test
    void anAnswersVersionHeadersAreProvenWithIt() {
        String request = SECRET.sign("GET", "/internal/v0/entity?id=k", new byte[0], 1_000);
        String proof = SECRET.answer(request, 200, version("7", "0", null), Unpooled.wrappedBuffer(bytes("value")));
        assertThat(SECRET.provesAnswer(request, 200, version("7", "0", null), bytes("value"), proof)).isTrue();
        assertThat(SECRET.provesAnswer(request, 200, version("8", "0", null), bytes("value"), proof)).as("a newer timestamp").isFalse();
        assertThat(SECRET.provesAnswer(request, 200, version("7", "1", null), bytes("value"), proof)).as("a tombstone").isFalse();
        assertThat(SECRET.provesAnswer(request, 200, version("7", "0", "1"), bytes("value"), proof)).as("an expiry added").isFalse();
        assertThat(SECRET.provesAnswer(request, 200, NONE, bytes("value"), proof)).as("the headers removed").isFalse();
        // The names match without case, as HTTP's do.
        DefaultHttpHeaders lower = new DefaultHttpHeaders();
        lower.set("x-dht-timestamp", "7").set("x-dht-tombstone", "0").set("x-dht-clock", "5").set("Content-Length", "5");
        assertThat(SECRET.provesAnswer(request, 200, ClusterSecret.Headers.of(lower), bytes("value"), proof)).isTrue();
    }

    @Test
    void aRequestsVersionHeadersAreProvenWithIt() {
        String uri = "/internal/v0/entity?id=k";
        DefaultHttpHeaders sent = new DefaultHttpHeaders();
        sent.set("X-Dht-Timestamp", "7").set("X-Dht-Membership", "3");
        String proof = SECRET.sign("DELETE", uri, ClusterSecret.Headers.of(sent), new byte[0], 1_000);
        assertThat(SECRET.verify("DELETE", uri, ClusterSecret.Headers.of(sent), Unpooled.EMPTY_BUFFER, proof, 1_000))
                .isEqualTo(ClusterSecret.Verdict.GOOD);
        // A captured delete replayed with a timestamp of now would delete every write made since.
        DefaultHttpHeaders replayed = new DefaultHttpHeaders();
        replayed.set("X-Dht-Timestamp", "9").set("X-Dht-Membership", "3");
        assertThat(SECRET.verify("DELETE", uri, ClusterSecret.Headers.of(replayed), Unpooled.EMPTY_BUFFER, proof, 1_000))
                .isEqualTo(ClusterSecret.Verdict.WRONG);
        DefaultHttpHeaders expiring = new DefaultHttpHeaders();
        expiring.set("X-Dht-Timestamp", "7").set("X-Dht-Membership", "3").set("X-Dht-Expiry", "1");
        assertThat(SECRET.verify("DELETE", uri, ClusterSecret.Headers.of(expiring), Unpooled.EMPTY_BUFFER, proof, 1_000))
                .isEqualTo(ClusterSecret.Verdict.WRONG);
        DefaultHttpHeaders twice = new DefaultHttpHeaders();
        twice.set("X-Dht-Timestamp", "7").add("X-Dht-Timestamp", "9").set("X-Dht-Membership", "3");
        assertThat(SECRET.verify("DELETE", uri, ClusterSecret.Headers.of(twice), Unpooled.EMPTY_BUFFER, proof, 1_000))
                .as("a second value added").isEqualTo(ClusterSecret.Verdict.WRONG);
    }

    @Test
    void aStreamedAnswerIsProvenForItsRequestAloneAndNotAsACompleteOne() {
        String request = SECRET.sign("GET", "/internal/v0/entities?start=a", new byte[0], 1_000);
        String proof = SECRET.streamAnswer(request);
        assertThat(SECRET.provesStreamAnswer(request, proof)).isTrue();
        assertThat(SECRET.provesStreamAnswer(SECRET.sign("GET", "/internal/v0/entities?start=b", new byte[0], 1_000), proof)).isFalse();
        assertThat(SECRET.provesStreamAnswer(request, OTHER.streamAnswer(request))).isFalse();
        assertThat(SECRET.provesAnswer(request, 200, NONE, new byte[0], proof)).as("a stream's proof for a complete answer").isFalse();
        assertThat(SECRET.provesStreamAnswer(request, SECRET.answer(request, 200, NONE, Unpooled.EMPTY_BUFFER))).isFalse();
    }

    @Test
    void onlyRefusalsThatCarryNoDataMayComeUnproven() {
        for (int s : new int[] {400, 401, 403, 408, 413, 414, 417, 431, 500, 501, 503}) assertThat(ClusterSecret.mayComeUnproven(s)).as("%d", s).isTrue();
        for (int s : new int[] {200, 201, 202, 204, 404, 409}) assertThat(ClusterSecret.mayComeUnproven(s)).as("%d", s).isFalse();
    }
}
