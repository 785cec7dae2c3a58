package dht.node.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import java.time.Duration;

/**
 * The pipeline of every accepted connection within the {@link ConnectionLimit}, one handler per job: HTTP framing with the size limits
 * ({@link HttpServerCodec}), body assembly and the 413 limit ({@link RequestAssembler}), then request
 * order and dispatch ({@link ResponseSequencer} over the {@link Router}).
 */
public final class HttpChannelInitializer extends ChannelInitializer<Channel> {
    /** Decoded requests a connection may have unanswered before the codec gives up on it. */
    private static final int MAX_PIPELINE_DEPTH = 8192;

    /**
     * The decoder gives every request with a body a trailer table (16 buckets) up front, though only
     * a chunked request can fill it and almost none do: a small table is allocated instead. It
     * still takes any trailers a client sends.
     */
    private static final HttpHeadersFactory SMALL_TRAILERS = new HttpHeadersFactory() {
        private final DefaultHttpHeadersFactory base = DefaultHttpHeadersFactory.trailersFactory();

        @Override
        public HttpHeaders newHeaders() {
            return base.newEmptyHeaders();
        }

        @Override
        public HttpHeaders newEmptyHeaders() {
            return base.newEmptyHeaders();
        }
    };

    private final int maxUriBytes;
    private final int maxHeaderBytes;
    private final int maxBodyBytes;
    private final RequestHandler handler;
    private final Admission admission;
    private final ChannelGroup channels;
    private final ConnectionLimit connections;
    private final Duration bodyTimeout;
    private final boolean writeRuns;
    /** Null: plain HTTP. */
    private final SslContext tls;

    /** @param writeRuns pipelined writes whose routes allow it may start together ({@link DispatchWindow}) */
    public HttpChannelInitializer(int maxUriBytes, int maxHeaderBytes, int maxBodyBytes, Duration bodyTimeout,
                                  RequestHandler handler, Admission admission, ChannelGroup channels, boolean writeRuns) {
        this(maxUriBytes, maxHeaderBytes, maxBodyBytes, bodyTimeout, handler, admission, channels, writeRuns, null,
                new ConnectionLimit(0));
    }

    /**
     * @param tls         the server's TLS context: every connection speaks HTTPS (null: plain HTTP)
     * @param connections the bound on connections open at once
     */
    public HttpChannelInitializer(int maxUriBytes, int maxHeaderBytes, int maxBodyBytes, Duration bodyTimeout,
                                  RequestHandler handler, Admission admission, ChannelGroup channels, boolean writeRuns,
                                  SslContext tls, ConnectionLimit connections) {
        this.tls = tls;
        this.connections = connections;
        this.bodyTimeout = bodyTimeout;
        this.writeRuns = writeRuns;
        this.admission = admission;
        this.maxUriBytes = maxUriBytes;
        this.maxHeaderBytes = maxHeaderBytes;
        this.maxBodyBytes = maxBodyBytes;
        this.handler = handler;
        this.channels = channels;
    }

    @Override
    protected void initChannel(Channel ch) {
        if (!connections.admit(ch, tls != null)) return;
        channels.add(ch);
        HttpDecoderConfig decoder = new HttpDecoderConfig()
                .setMaxInitialLineLength(RequestAssembler.decoderLineLimit(maxUriBytes))
                .setMaxHeaderSize(maxHeaderBytes)
                .setMaxChunkSize(64 * 1024)
                .setTrailersFactory(SMALL_TRAILERS);
        if (tls != null) ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
        ch.pipeline()
                .addLast("http", new HttpServerCodec(decoder, MAX_PIPELINE_DEPTH))
                .addLast("assembler", new RequestAssembler(maxUriBytes, maxBodyBytes, admission, bodyTimeout))
                .addLast("sequencer", new ResponseSequencer(handler, admission, writeRuns));
        IdleTimeout idle = connections.idleTimeout();
        if (idle != null) ch.pipeline().addLast("idle-timeout", idle);
    }
}
