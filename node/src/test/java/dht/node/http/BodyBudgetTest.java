package dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Request bodies held node-wide stay within the budget; past it, 503 at once, and the bytes come back. */
class BodyBudgetTest {
    final Admission admission = new Admission(100, 10, 1500);
    final HoldingConnections connections = new HoldingConnections(admission);
    final List<AnswerSlot> held = connections.held;

    EmbeddedChannel connection() {
        return connections.connect();
    }

    static ByteBuf put(int bytes) {
        return Unpooled.copiedBuffer("PUT /v0/entity?id=k HTTP/1.1\r\nContent-Length: " + bytes + "\r\n\r\n"
                + "x".repeat(bytes), StandardCharsets.US_ASCII);
    }

    static String answer(EmbeddedChannel ch) {
        ByteBuf out = ch.readOutbound();
        if (out == null) return null;
        String s = out.toString(StandardCharsets.US_ASCII);
        out.release();
        return s;
    }

    @Test
    void bodiesPastTheBudgetAre503AndTheBytesComeBack() {
        EmbeddedChannel a = connection();
        EmbeddedChannel b = connection();
        a.writeInbound(put(1000));
        assertThat(held).hasSize(1);
        assertThat(admission.bodyBytesHeld()).isEqualTo(1000);

        b.writeInbound(put(1000)); // 1000 + 1000 > 1500
        assertThat(held).hasSize(1);
        assertThat(answer(b)).startsWith("HTTP/1.1 503").contains("retry-after: 1");
        assertThat(admission.bodyBytesHeld()).isEqualTo(1000);

        b.writeInbound(put(400)); // fits beside the held one
        assertThat(held).hasSize(2);
        assertThat(admission.bodyBytesHeld()).isEqualTo(1400);

        held.get(0).respond(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CREATED));
        assertThat(answer(a)).startsWith("HTTP/1.1 201");
        assertThat(admission.bodyBytesHeld()).isEqualTo(400);

        b.close(); // the held request of a closed connection gives its bytes back once answered
        held.get(1).respond(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CREATED));
        assertThat(admission.bodyBytesHeld()).isZero();
        a.close();
    }
}
