package dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Answers that become ready while their client is not reading count against a node-wide budget;
 * past it they are replaced by 503, and the bytes come back once the answers are written.
 */
class UnreadAnswerBudgetTest {
    final Admission admission = new Admission(100, 10, 12_000);
    final HoldingConnections connections = new HoldingConnections(admission);
    final List<Slot> held = connections.held;

    EmbeddedChannel connection() {
        return connections.connect();
    }

    static ByteBuf gets(int n) {
        return Unpooled.copiedBuffer("GET /v0/entity?id=k HTTP/1.1\r\n\r\n".repeat(n), StandardCharsets.US_ASCII);
    }

    /** Everything written to the client so far, as text. */
    static String written(EmbeddedChannel ch) {
        StringBuilder b = new StringBuilder();
        ByteBuf out;
        while ((out = ch.readOutbound()) != null) {
            b.append(out.toString(StandardCharsets.US_ASCII));
            out.release();
        }
        return b.toString();
    }

    /** The client stops reading (the outbound buffer is full) or reads again. */
    static void clientReads(EmbeddedChannel ch, boolean reads) {
        ch.unsafe().outboundBuffer().setUserDefinedWritability(1, reads);
        ch.runPendingTasks(); // Netty tells the pipeline of this change in a task
    }

    @Test
    void answersHeldForAClientThatDoesNotReadStayWithinTheBudget() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(gets(4));
        assertThat(held).hasSize(4);

        clientReads(ch, false);
        held.get(0).respond(Responses.bytes(HttpResponseStatus.OK, "a".repeat(5000).getBytes(StandardCharsets.US_ASCII)));
        held.get(1).respond(Responses.bytes(HttpResponseStatus.OK, "b".repeat(5000).getBytes(StandardCharsets.US_ASCII)));
        assertThat(admission.answerBytesHeld()).isEqualTo(10_000);
        held.get(2).respond(Responses.bytes(HttpResponseStatus.OK, "c".repeat(5000).getBytes(StandardCharsets.US_ASCII))); // past 12,000
        held.get(3).respond(Responses.bytes(HttpResponseStatus.OK, "d".repeat(100).getBytes(StandardCharsets.US_ASCII)));  // small: not counted
        assertThat(admission.answerBytesHeld()).isEqualTo(10_000);
        assertThat(written(ch)).as("nothing is written while the client does not read").isEmpty();

        ch.writeInbound(gets(1));
        assertThat(held).as("no request is dispatched while the client does not read").hasSize(4);

        clientReads(ch, true);
        String out = written(ch);
        assertThat(out.split("HTTP/1.1 ", -1)).as("four answers").hasSize(5);
        assertThat(out).contains("a".repeat(5000)).contains("b".repeat(5000)).doesNotContain("ccccc")
                .contains("503 Service Unavailable").contains("d".repeat(100));
        assertThat(out.indexOf("aaaa")).isLessThan(out.indexOf("bbbb"));
        assertThat(out.indexOf("bbbb")).isLessThan(out.indexOf("503")).isLessThan(out.indexOf("dddd"));
        assertThat(admission.answerBytesHeld()).isZero();
        assertThat(held).as("the request that waited is dispatched once the client reads").hasSize(5);
        ch.close();
    }

    @Test
    void aConnectionThatClosesGivesItsHeldAnswerBytesBack() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(gets(1));
        clientReads(ch, false);
        held.get(0).respond(Responses.bytes(HttpResponseStatus.OK, new byte[8000]));
        assertThat(admission.answerBytesHeld()).isEqualTo(8000);
        ch.close();
        assertThat(admission.answerBytesHeld()).isZero();
    }
}
