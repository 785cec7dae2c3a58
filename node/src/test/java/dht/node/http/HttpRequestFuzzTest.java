package dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dht.testkit.FuzzDeadline;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slf4j.LoggerFactory;

/**
 * Fuzzes the HTTP request assembly: any bytes a client sends, arriving in two reads, go through
 * the node's pipeline as {@link HttpChannelInitializer} builds it (Netty's {@link
 * io.netty.handler.codec.http.HttpServerCodec} with the node's limits, {@link RequestAssembler},
 * {@link ResponseSequencer}) to a handler that answers every request it is given 200. What must
 * hold, for any bytes:
 * <ul>
 * <li>no exception leaves the pipeline, and none reaches its last handler (logged there as
 *     "closed after an error");
 * <li>what goes back parses as HTTP responses, each 200 or a 4xx (or the documented 100 Continue
 *     and 501 for an unknown transfer coding);
 * <li>the bytes held while reading are bounded by the input and the limits, not by lengths the
 *     input claims; once the connection closes nothing is held: no buffer, no body budget, no
 *     admission permit;
 * <li>a valid request on a new connection still gets its 200.
 * </ul>
 * Every input runs under a deadline ({@link FuzzDeadline}). The seed corpus
 * ({@code HttpRequestFuzzTestInputs}) holds requests of every framing the node takes
 * ({@link HttpFuzzSeeds}). See docs/fuzzing.md.
 */
class HttpRequestFuzzTest {
    static final int MAX_URI = 256;
    static final int MAX_HEADER = 1024;
    static final int MAX_BODY = 1000;
    /** What the decoders may hold beyond the input itself: their limits, and a chunk's buffer. */
    static final long SLACK = 3L * MAX_URI + 256 + MAX_HEADER + MAX_BODY + 64 * 1024;

    private static final ListAppender<ILoggingEvent> warnings = new ListAppender<>();
    private static final List<Logger> watched = new ArrayList<>();

    @BeforeAll
    static void watchLogs() {
        warnings.start();
        for (Class<?> c : List.of(ResponseSequencer.class, RequestAssembler.class, AnswerSlot.class)) {
            Logger l = (Logger) LoggerFactory.getLogger(c);
            l.addAppender(warnings);
            watched.add(l);
        }
    }

    @AfterAll
    static void unwatchLogs() {
        watched.forEach(l -> l.detachAppender(warnings));
    }

    /** A request handler that answers 200 with an empty body, so a HEAD's answer parses like any other. */
    static final RequestHandler OK = (request, slot) -> {
        request.release();
        DefaultFullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        slot.respond(r);
    };

    static EmbeddedChannel connection(Admission admission, UnpooledByteBufAllocator alloc) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline().addLast(new HttpChannelInitializer(MAX_URI, MAX_HEADER, MAX_BODY, Duration.ofSeconds(30), OK,
                admission, new DefaultChannelGroup(ImmediateEventExecutor.INSTANCE), true));
        return ch;
    }

    @FuzzTest(maxDuration = "10s")
    void answersEveryInputOr4xx(byte[] data) throws Exception {
        FuzzDeadline.run(FuzzDeadline.FIRST_LOADING_NETTY_SECONDS, () -> {
            synchronized (warnings) {
                warnings.list.clear();
            }
            UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false, true);
            Admission admission = new Admission(64, 4, 64 * 1024);
            EmbeddedChannel ch = connection(admission, alloc);
            int cut = data.length == 0 ? 0 : (data[0] & 0xFF) % (data.length + 1);
            List<HttpResponseStatus> statuses = new ArrayList<>();
            EmbeddedChannel client = new EmbeddedChannel(clientDecoder(ch));
            feed(ch, alloc, data, 0, cut, client, statuses);
            feed(ch, alloc, data, cut, data.length, client, statuses);
            ch.runPendingTasks();
            answers(ch, client, statuses);
            for (HttpResponseStatus s : statuses) {
                int code = s.code();
                assertThat(code == 200 || code == 100 || code == 501 || (code >= 400 && code < 500))
                        .as("status %s", s).isTrue();
            }
            ch.finishAndReleaseAll();
            client.finishAndReleaseAll();
            assertThat(alloc.metric().usedHeapMemory()).as("bytes held after the close").isZero();
            assertThat(admission.bodyBytesHeld()).as("body budget held after the close").isZero();
            assertThat(admission.inFlight()).as("permits held after the close").isZero();
            assertThat(admission.answerBytesHeld()).as("answer budget held after the close").isZero();
            synchronized (warnings) {
                assertThat(warnings.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                        .extracting(ILoggingEvent::getFormattedMessage).isEmpty();
            }

            EmbeddedChannel again = connection(admission, alloc);
            List<HttpResponseStatus> ok = new ArrayList<>();
            EmbeddedChannel okClient = new EmbeddedChannel(clientDecoder(again));
            byte[] valid = "GET /v0/status HTTP/1.1\r\nHost: n\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            feed(again, alloc, valid, 0, valid.length, okClient, ok);
            assertThat(ok).containsExactly(HttpResponseStatus.OK);
            again.finishAndReleaseAll();
            okClient.finishAndReleaseAll();
        });
    }

    /**
     * The client's side of {@code ch}: a response decoder that knows which answers are to HEAD
     * requests, as a real client does (it sent them), from the requests the node's own decoder
     * read, in order: an answer to a HEAD carries the Content-Length of the body it leaves out
     * (a 414 to a HEAD, found by fuzzing, read otherwise as taking the next answer for its body).
     */
    private static HttpResponseDecoder clientDecoder(EmbeddedChannel ch) {
        java.util.Queue<HttpMethod> methods = new java.util.ArrayDeque<>();
        ch.pipeline().addAfter("http", "methods-read", new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof HttpRequest r) methods.add(r.method());
                ctx.fireChannelRead(msg);
            }
        });
        return new HttpResponseDecoder() {
            @Override
            protected boolean isContentAlwaysEmpty(HttpMessage msg) {
                if (msg instanceof HttpResponse r && r.status().codeClass() != io.netty.handler.codec.http.HttpStatusClass.INFORMATIONAL
                        && HttpMethod.HEAD.equals(methods.poll())) {
                    return true;
                }
                return super.isContentAlwaysEmpty(msg);
            }
        };
    }

    private static void feed(EmbeddedChannel ch, UnpooledByteBufAllocator alloc, byte[] data, int from, int to,
                             EmbeddedChannel client, List<HttpResponseStatus> statuses) {
        if (from >= to || !ch.isOpen()) return;
        ByteBuf in = alloc.heapBuffer(to - from).writeBytes(data, from, to - from);
        ch.writeInbound(in); // rethrows any exception that reached the pipeline's end
        ch.runPendingTasks();
        assertThat(alloc.metric().usedHeapMemory()).as("bytes held while reading %d input bytes", data.length)
                .isLessThanOrEqualTo(2L * data.length + SLACK);
        answers(ch, client, statuses);
        Object o;
        while ((o = ch.readInbound()) != null) ReferenceCountUtil.release(o);
    }

    /** Moves what the node wrote to the client's decoder, collecting the statuses of well-formed responses. */
    private static void answers(EmbeddedChannel ch, EmbeddedChannel client, List<HttpResponseStatus> statuses) {
        Object out;
        while ((out = ch.readOutbound()) != null) {
            client.writeInbound(out);
        }
        Object msg;
        while ((msg = client.readInbound()) != null) {
            if (msg instanceof HttpObject h) assertThat(h.decoderResult().isSuccess()).as("a well-formed response").isTrue();
            if (msg instanceof HttpResponse r) statuses.add(r.status());
            ReferenceCountUtil.release(msg);
        }
    }
}
