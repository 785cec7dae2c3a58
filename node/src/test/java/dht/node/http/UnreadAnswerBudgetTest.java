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
 * Answers that are ready but cannot be written yet (an earlier one is not ready, or the client is
 * not reading) give their permits back and count against a node-wide budget; past it they are
 * replaced by 503, and the bytes come back once the answers are written or dropped.
 */
class UnreadAnswerBudgetTest {
    final Admission admission = new Admission(100, 10, 48_000);
    final HoldingConnections connections = new HoldingConnections(admission);
    final List<AnswerSlot> held = connections.held;

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

    static io.netty.handler.codec.http.FullHttpResponse ok(char c, int n) {
        return Responses.bytes(HttpResponseStatus.OK, String.valueOf(c).repeat(n).getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void answersWaitingForTheirTurnOrTheClientStayWithinTheBudgetAndGiveTheirPermitsBack() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(gets(4));
        assertThat(held).hasSize(4);

        // Answers 1-3 are ready before the head: they wait for it, their work over, counted (body
        // + 256) unless small.
        held.get(1).respond(ok('b', 5000));
        held.get(2).respond(ok('c', 5000));
        held.get(3).respond(ok('d', 100));
        assertThat(admission.answerBytesHeld()).isEqualTo(5256 + 5256);
        assertThat(connections.workReleased).hasValue(3);
        assertThat(written(ch)).isEmpty();

        // The client stops reading; the head's answer would pass the connection's share of the
        // 48,000-byte budget (a quarter): a 503 instead.
        clientReads(ch, false);
        held.get(0).respond(ok('a', 5000));
        assertThat(connections.workReleased).hasValue(4);
        assertThat(admission.answerBytesHeld()).isEqualTo(5256 + 5256);

        // Another connection still has its share.
        EmbeddedChannel other = connection();
        other.writeInbound(gets(1));
        clientReads(other, false);
        held.get(4).respond(ok('e', 5000));
        assertThat(admission.answerBytesHeld()).isEqualTo(5256 + 5256 + 5256);
        other.close();
        assertThat(admission.answerBytesHeld()).isEqualTo(5256 + 5256);
        assertThat(written(ch)).as("nothing is written while the client does not read").isEmpty();

        ch.writeInbound(gets(1));
        assertThat(held).as("no request is dispatched while the client does not read").hasSize(5);

        clientReads(ch, true);
        String out = written(ch);
        assertThat(out.split("HTTP/1.1 ", -1)).as("four answers").hasSize(5);
        assertThat(out).startsWith("HTTP/1.1 503").doesNotContain("aaaaa")
                .contains("b".repeat(5000)).contains("c".repeat(5000)).contains("d".repeat(100));
        assertThat(out.indexOf("bbbb")).isLessThan(out.indexOf("cccc"));
        assertThat(out.indexOf("cccc")).isLessThan(out.indexOf("dddd"));
        assertThat(admission.answerBytesHeld()).isZero();
        assertThat(held).as("the request that waited is dispatched once the client reads").hasSize(6);
        ch.close();
    }

    @Test
    void clientsThatDoNotReadTakeAtMostHalfTheBudgetAndAReadingClientsAnswerIsWritten() {
        Admission big = new Admission(100, 10, 400_000);
        HoldingConnections conns = new HoldingConnections(big);
        List<EmbeddedChannel> idle = new java.util.ArrayList<>();
        for (int c = 0; c < 4; c++) {
            EmbeddedChannel ch = conns.connect();
            idle.add(ch);
            ch.writeInbound(gets(1));
            clientReads(ch, false);
            conns.held.get(c).respond(ok('x', 100_000 - 256)); // a quarter of the budget each
        }
        assertThat(big.waitingAnswerBytes()).as("waiting answers: half the budget").isEqualTo(200_000);
        assertThat(big.answerBytesHeld()).isEqualTo(200_000);
        clientReads(idle.get(3), true);
        assertThat(written(idle.get(3))).as("the answer past half the budget").startsWith("HTTP/1.1 503");

        // At the head of a connection that reads, an answer is written (here in slices), not refused.
        EmbeddedChannel reader = conns.connect();
        reader.writeInbound(gets(1));
        conns.held.get(4).respond(ok('r', 70_000));
        reader.runPendingTasks(); // Netty tells of writability in tasks here; each lets the next slice go
        String out = written(reader);
        assertThat(out).startsWith("HTTP/1.1 200").endsWith("r".repeat(70_000));
        assertThat(big.answerBytesHeld()).isEqualTo(200_000);
        for (EmbeddedChannel ch : idle) ch.close();
        assertThat(big.answerBytesHeld()).isZero();
        assertThat(big.waitingAnswerBytes()).isZero();
    }

    @Test
    void aConnectionThatClosesGivesItsWaitingAnswerBytesBack() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(gets(1));
        clientReads(ch, false);
        held.get(0).respond(Responses.bytes(HttpResponseStatus.OK, new byte[8000]));
        assertThat(admission.answerBytesHeld()).isEqualTo(8256);
        ch.close();
        assertThat(admission.answerBytesHeld()).isZero();
    }

    /** A GET's value, counted in the budget since the store read it, as EntityRoute does. */
    static void respondCounted(Admission budget, AnswerSlot slot, char c, int bytes) {
        assertThat(budget.tryReserveAnswer(bytes)).isTrue();
        slot.holdAnswer(budget, bytes);
        slot.respond(ok(c, bytes));
    }

    @Test
    void aConnectionsFirstWaitingAnswerMayBeLargerThanItsShare() {
        Admission big = new Admission(100, 10, 400_000); // a connection's share: 100,000
        HoldingConnections conns = new HoldingConnections(big);
        EmbeddedChannel ch = conns.connect();
        ch.writeInbound(gets(1));
        clientReads(ch, false);
        respondCounted(big, conns.held.get(0), 'r', 150_000);

        assertThat(ch.isOpen()).isTrue();
        assertThat(conns.workReleased).as("it waits, its work over").hasValue(1);
        assertThat(big.answerBytesHeld()).isEqualTo(150_000);
        assertThat(big.waitingAnswerBytes()).isEqualTo(150_000);

        clientReads(ch, true);
        ch.runPendingTasks();
        String out = written(ch);
        assertThat(out).startsWith("HTTP/1.1 200").endsWith("r".repeat(150_000));
        assertThat(big.answerBytesHeld()).isZero();
        assertThat(big.waitingAnswerBytes()).isZero();
    }

    @Test
    void aCountedValueWaitingBehindAnotherIsReplacedPastTheShareAndGivesItsBytesBackAtOnce() {
        Admission big = new Admission(100, 10, 400_000);
        HoldingConnections conns = new HoldingConnections(big);
        EmbeddedChannel ch = conns.connect();
        ch.writeInbound(gets(3));
        // The head is not ready: these two wait behind it, and the second would pass the share.
        respondCounted(big, conns.held.get(1), 'w', 90_000);
        respondCounted(big, conns.held.get(2), 's', 150_000);

        assertThat(big.answerBytesHeld()).isEqualTo(90_000);
        assertThat(big.waitingAnswerBytes()).isEqualTo(90_000);
        assertThat(conns.workReleased).hasValue(2);
        conns.held.get(0).respond(ok('h', 10));
        String out = written(ch);
        assertThat(out).startsWith("HTTP/1.1 200").contains("w".repeat(90_000)).contains("HTTP/1.1 503").doesNotContain("sssss");
        assertThat(big.answerBytesHeld()).isZero();
    }

    /** The client of {@code ch} stops reading once the node has written {@code bytes} to it. */
    static void clientStopsReadingAfter(EmbeddedChannel ch, long bytes) {
        ch.pipeline().addFirst(new io.netty.channel.ChannelOutboundHandlerAdapter() {
            long written;

            @Override
            public void write(io.netty.channel.ChannelHandlerContext ctx, Object msg, io.netty.channel.ChannelPromise promise) {
                if (msg instanceof ByteBuf b) written += b.readableBytes();
                if (written > bytes) ch.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
                ctx.write(msg, promise);
            }
        });
    }

    /**
     * Connection B's answer waits for a client that is not reading, holding most of the half of the
     * budget that waiting answers may take; connection A's answer then stalls part way (its client
     * stops reading after 70,000 bytes) and cannot wait as B's does. Returns A.
     */
    private EmbeddedChannel aSlicedAnswerStallsWithTheWaitingBudgetSpent(Admission small, HoldingConnections conns) {
        EmbeddedChannel b = conns.connect();
        b.writeInbound(gets(1));
        clientReads(b, false);
        conns.held.get(0).respond(ok('b', 150_000));
        assertThat(small.waitingAnswerBytes()).as("B's answer waits").isPositive();
        EmbeddedChannel a = conns.connect();
        a.writeInbound(gets(1));
        clientStopsReadingAfter(a, 70_000);
        conns.held.get(1).respond(ok('a', 150_000));
        return a;
    }

    /**
     * A client that reads, only slower than the node writes (one of many reading large values at
     * once), gets its whole answer even when the budget for waiting answers is spent: the answer
     * keeps its permit meanwhile. Before, the connection was closed at the stall, and the client
     * had a 200 cut short (2 of 36 GETs of an 8 MB value, 12 curls at once on one node).
     */
    @Test
    void aStalledAnswerThatCannotWaitKeepsItsPermitAndReachesAClientThatReads() {
        Admission small = new Admission(100, 10, 400_000); // waiting answers: at most 200,000 bytes
        HoldingConnections conns = new HoldingConnections(small);
        EmbeddedChannel a = aSlicedAnswerStallsWithTheWaitingBudgetSpent(small, conns);
        assertThat(a.isOpen()).as("kept open: its client may yet read").isTrue();
        assertThat(conns.workReleased).as("B's work is over; A's answer, being written, keeps its permit").hasValue(1);

        a.advanceTimeBy(SLICE_HALF_STALL, java.util.concurrent.TimeUnit.MILLISECONDS);
        a.runPendingTasks();
        clientReads(a, true);
        String out = written(a);
        assertThat(out).startsWith("HTTP/1.1 200").endsWith("a".repeat(150_000));
        assertThat(conns.workReleased).hasValue(2);
        assertThat(a.isOpen()).isTrue();
    }

    private static final long SLICE_HALF_STALL = WaitingAnswers.SLICE_STALL_MILLIS / 2;

    /** The same answer to a client that takes nothing more: closed once a stall has lasted the limit, its permit back. */
    @Test
    void aStalledAnswerThatCannotWaitIsClosedWhenItsClientTakesNothing() {
        Admission small = new Admission(100, 10, 400_000);
        HoldingConnections conns = new HoldingConnections(small);
        EmbeddedChannel a = aSlicedAnswerStallsWithTheWaitingBudgetSpent(small, conns);
        a.advanceTimeBy(WaitingAnswers.SLICE_STALL_MILLIS + 1, java.util.concurrent.TimeUnit.MILLISECONDS);
        a.runPendingTasks();
        assertThat(a.isOpen()).as("closed: it took nothing in a second").isFalse();
        assertThat(conns.workReleased).hasValue(2);
    }

    @Test
    void anAnswerThatCannotBeBuiltIsA500ThatClosesAndGivesEverythingBack() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(gets(2));
        assertThat(admission.tryReserveAnswer(5000)).isTrue();
        held.get(0).holdAnswer(admission, 5000);
        held.get(0).respond(() -> {
            throw new OutOfMemoryError("Java heap space (a test's)");
        });
        assertThat(written(ch)).startsWith("HTTP/1.1 500").contains("connection: close");
        assertThat(admission.answerBytesHeld()).isZero();
        assertThat(connections.workReleased).as("the permit came back; the pipelined request behind it is dropped").hasValue(1);
        assertThat(ch.isOpen()).isFalse();
    }
}
