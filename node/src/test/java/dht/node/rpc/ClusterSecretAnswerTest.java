package dht.node.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** An answer's proof: it holds for that answer to that request only, and only with the secret. */
class ClusterSecretAnswerTest {
    private static final ClusterSecret SECRET = new ClusterSecret("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    private static final ClusterSecret OTHER = new ClusterSecret("fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII));

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aCompleteAnswerIsProvenForItsRequestStatusAndBodyAlone() {
        String request = SECRET.sign("GET", "/internal/v0/entity?id=k", new byte[0], 1_000);
        String proof = SECRET.answer(request, 200, Unpooled.wrappedBuffer(bytes("value")));
        assertThat(SECRET.provesAnswer(request, 200, bytes("value"), proof)).isTrue();
        assertThat(SECRET.provesAnswer(request, 200, bytes("forged"), proof)).as("another body").isFalse();
        assertThat(SECRET.provesAnswer(request, 404, bytes("value"), proof)).as("another status").isFalse();
        String other = SECRET.sign("GET", "/internal/v0/entity?id=j", new byte[0], 1_000);
        assertThat(SECRET.provesAnswer(other, 200, bytes("value"), proof)).as("another request").isFalse();
        assertThat(SECRET.provesAnswer(request, 200, bytes("value"), OTHER.answer(request, 200, Unpooled.wrappedBuffer(bytes("value")))))
                .as("another secret").isFalse();
        assertThat(SECRET.provesAnswer(request, 200, bytes("value"), null)).as("no proof").isFalse();
        assertThat(SECRET.provesAnswer(request, 200, bytes("value"), "")).isFalse();
    }

    @Test
    void aStreamedAnswerIsProvenForItsRequestAloneAndNotAsACompleteOne() {
        String request = SECRET.sign("GET", "/internal/v0/entities?start=a", new byte[0], 1_000);
        String proof = SECRET.streamAnswer(request);
        assertThat(SECRET.provesStreamAnswer(request, proof)).isTrue();
        assertThat(SECRET.provesStreamAnswer(SECRET.sign("GET", "/internal/v0/entities?start=b", new byte[0], 1_000), proof)).isFalse();
        assertThat(SECRET.provesStreamAnswer(request, OTHER.streamAnswer(request))).isFalse();
        assertThat(SECRET.provesAnswer(request, 200, new byte[0], proof)).as("a stream's proof for a complete answer").isFalse();
        assertThat(SECRET.provesStreamAnswer(request, SECRET.answer(request, 200, Unpooled.EMPTY_BUFFER))).isFalse();
    }

    @Test
    void onlyRefusalsThatCarryNoDataMayComeUnproven() {
        for (int s : new int[] {400, 401, 403, 408, 413, 414, 417, 431, 500, 501, 503}) assertThat(ClusterSecret.mayComeUnproven(s)).as("%d", s).isTrue();
        for (int s : new int[] {200, 201, 202, 204, 404, 409}) assertThat(ClusterSecret.mayComeUnproven(s)).as("%d", s).isFalse();
    }
}
