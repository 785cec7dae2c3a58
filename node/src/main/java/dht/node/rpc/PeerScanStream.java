package dht.node.rpc;

import dht.node.cluster.ScanSource;
import dht.storage.Entry;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One peer's internal scan stream ({@code GET /internal/v0/entities}, {@link ScanRecord}s), read
 * on a dedicated connection with flow control: auto-read is off, and the event loop asks for more
 * only while fewer than {@link #HIGH_WATER} bytes wait in the queue; the consumer (a scan worker
 * thread) asks again once it has drained below {@link #LOW_WATER}.
 *
 * <p>Invariants: records are handed out only whole, and under a cluster secret only once the
 * {@link StreamSeal} after them held; the stream is complete only after HTTP's terminating chunk
 * (under a secret, right after a good last seal), and a stream that ends otherwise, answers non-200, sends no response head
 * within the replica timeout of its opening (the idle timeout for a background stream), or then
 * stays silent for the idle timeout while it may send (not paused by flow control), fails with
 * {@link ScanSource.ScanSourceException}.
 * Closing the stream closes the connection.
 */
final class PeerScanStream implements ScanSource {
    static final int HIGH_WATER = 1 << 20;
    static final int LOW_WATER = 256 << 10;
    private static final Object END = new Object();
    /**
     * Most records a sealed stream may send between seals: a sender seals each batch of at most
     * 32 KiB of records (18 bytes the least each) and each large entry, so a run longer than this is
     * no member's; the bound keeps what waits for a seal small.
     */
    static final int MAX_UNSEALED = 4096;

    private final String peer;
    private final Duration answerTimeout;
    private final Duration idleTimeout;
    /** Set once the response head arrived: until then a frozen peer is given only {@code answerTimeout}. */
    private volatile boolean answered;
    /** With a cluster secret: what the answer's head must prove, and the request's proof; else null. */
    private volatile ClusterSecret secret;
    private volatile String requestProof;
    /**
     * System.nanoTime() of the opening, of the last bytes from the peer, or of the last resume of
     * reading, whichever is latest: the timeouts count from it, not from when the consumer starts
     * waiting. A merge waits for its sources one after the other, so counting from the wait gave
     * every frozen peer a timeout of its own in turn.
     */
    private volatile long heardAt = System.nanoTime();
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final AtomicLong buffered = new AtomicLong();
    private volatile Channel channel;
    private volatile boolean paused;

    // consumer-side state (scan worker thread only)
    private byte[] chunk = new byte[0];
    private int pos;
    private boolean ended;
    private Entry next;
    private boolean closed;
    /**
     * With a cluster secret: the stream's seals (set by the opening before anything is queued); the
     * records read since the last seal wait in {@code unsealed}, those it proved in {@code proven}.
     */
    private StreamSeal seal;
    private final ArrayDeque<Entry> unsealed = new ArrayDeque<>();
    private final ArrayDeque<Entry> proven = new ArrayDeque<>();
    /** While a record is read under a seal: where its bytes start in {@code chunk}, fed to the seal as the chunk is left; else -1. */
    private int sealFrom = -1;
    private boolean lastSeal;

    private PeerScanStream(String peer, Duration answerTimeout, Duration idleTimeout) {
        this.peer = peer;
        this.answerTimeout = answerTimeout;
        this.idleTimeout = idleTimeout;
    }

    static PeerScanStream open(PeerClient client, String peer, String host, int port, String hostHeader,
                               byte[] start, byte[] end, int limit) {
        return open(client, peer, host, port, hostHeader, InternalProtocol.scanUri(start, end, limit), false);
    }

    /**
     * The stream {@code uri} names (a range stream's, with its parameters). A {@code background}
     * stream (a join's) is given the idle timeout for its first answer too: no client waits on it,
     * and a member busy with client traffic may take longer than the replica timeout to start, where
     * failing means a retry that starts the member's scan over.
     */
    static PeerScanStream open(PeerClient client, String peer, String host, int port, String hostHeader, String uri,
                               boolean background) {
        Duration idle = client.timeout().multipliedBy(5).compareTo(Duration.ofSeconds(5)) > 0
                ? client.timeout().multipliedBy(5) : Duration.ofSeconds(5);
        PeerScanStream s = new PeerScanStream(peer, background ? idle : client.timeout(), idle);
        Bootstrap b = new Bootstrap().group(client.pool().group()).channel(client.pool().channelClass())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, client.timeout().toMillis()))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.AUTO_READ, false)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (client.pool().tls() != null) ch.pipeline().addLast(client.pool().tls().newHandler(ch.alloc(), host, port));
                        ch.pipeline().addLast(new HttpClientCodec(), s.new Reader());
                    }
                });
        ChannelFuture connect = b.connect(host, port);
        s.channel = connect.channel();
        connect.addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                s.queue.add(new ScanSourceException("cannot connect to " + peer + " for a scan: " + f.cause(), f.cause()));
                return;
            }
            FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri,
                    Unpooled.EMPTY_BUFFER);
            req.headers().set(HttpHeaderNames.HOST, hostHeader);
            HttpUtil.setContentLength(req, 0);
            s.requestProof = client.sign(req, new byte[0]);
            s.secret = client.secret();
            if (s.secret != null) s.seal = s.secret.streamSeal(s.requestProof);
            f.channel().writeAndFlush(req);
            f.channel().read();
        });
        return s;
    }

    /**
     * A stream whose peer already sent {@code chunks} (body bytes, as they arrived) and the
     * terminating chunk: the consumer side alone, with no connection, as its fuzz test drives it.
     */
    static PeerScanStream replaying(String peer, List<byte[]> chunks) {
        return replaying(peer, chunks, null);
    }

    /** As above, its records sealed by {@code seal} (null: not sealed). */
    static PeerScanStream replaying(String peer, List<byte[]> chunks, StreamSeal seal) {
        PeerScanStream s = new PeerScanStream(peer, Duration.ofSeconds(1), Duration.ofSeconds(1));
        s.seal = seal;
        s.answered = true;
        for (byte[] c : chunks) {
            s.buffered.addAndGet(c.length);
            s.queue.add(c);
        }
        s.queue.add(END);
        return s;
    }

    @Override
    public String node() {
        return peer;
    }

    @Override
    public boolean hasNext() {
        if (next == null && !closed) next = readRecord();
        return next != null;
    }

    @Override
    public Entry next() {
        if (!hasNext()) throw new NoSuchElementException();
        Entry e = next;
        next = null;
        return e;
    }

    private Entry readRecord() {
        // ensure() first: the opening sets the seal before any bytes or the end are queued
        boolean more = !proven.isEmpty() || ensure();
        if (seal != null) return readSealed();
        return more ? readOne() : null; // else a clean end between records
    }

    private Entry readOne() {
        try {
            return ScanRecord.read(input);
        } catch (ScanRecord.Malformed e) {
            throw new ScanSourceException(peer + " sent " + e.getMessage(), null);
        }
    }

    /** The next record whose seal held; null at the stream's end, which must follow its last seal. */
    private Entry readSealed() {
        while (proven.isEmpty()) {
            if (!ensure()) {
                if (!lastSeal) throw new ScanSourceException("the scan stream of " + peer + " ended without its last seal", null);
                return null;
            }
            if (lastSeal) throw new ScanSourceException(peer + " sent more after the last seal of its scan stream", null);
            int flags = chunk[pos] & 0xFF;
            if ((flags & StreamSeal.FLAG) == 0) {
                if (unsealed.size() >= MAX_UNSEALED) throw new ScanSourceException(peer + " sent " + MAX_UNSEALED + " records without a seal", null);
                sealFrom = pos;
                try {
                    unsealed.add(readOne());
                    seal.update(chunk, sealFrom, pos - sealFrom);
                } finally {
                    sealFrom = -1;
                }
                continue;
            }
            pos++;
            boolean end = (flags & StreamSeal.END) != 0;
            if (!seal.holds(end, input.readBytes(StreamSeal.MAC_BYTES))) {
                throw new ScanSourceException(peer + " sent scan records whose seal does not hold: changed on the way, or "
                        + ClusterSecret.UNPROVEN, null);
            }
            proven.addAll(unsealed);
            unsealed.clear();
            lastSeal = end;
        }
        return proven.poll();
    }

    /** True when at least one more byte is available; false at the stream's clean end. */
    private boolean ensure() {
        while (pos >= chunk.length) {
            if (ended) return false;
            Object o;
            long wait = (answered ? idleTimeout : answerTimeout).toMillis();
            try {
                long left = heardAt + TimeUnit.MILLISECONDS.toNanos(wait) - System.nanoTime();
                o = queue.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ScanSourceException("interrupted while reading the scan of " + peer, e);
            }
            if (o == null) {
                throw new ScanSourceException(peer + (answered ? " sent nothing for " : " did not answer within ")
                        + wait + " ms", null);
            }
            if (o == END) {
                ended = true;
                return false;
            }
            if (o instanceof ScanSourceException e) throw e;
            if (sealFrom >= 0) {
                seal.update(chunk, sealFrom, chunk.length - sealFrom);
                sealFrom = 0;
            }
            chunk = (byte[]) o;
            pos = 0;
            long left = buffered.addAndGet(-chunk.length);
            if (paused && left < LOW_WATER) {
                paused = false;
                heardAt = System.nanoTime();
                Channel ch = channel;
                ch.eventLoop().execute(ch::read);
            }
        }
        return true;
    }

    /** The queued chunks as one run of bytes; a record cut by the stream's end is truncated. */
    private final ScanRecord.Input input = new ScanRecord.Input() {
        @Override
        public int readByte() {
            if (!ensure()) throw truncated();
            return chunk[pos++] & 0xFF;
        }

        /** {@code n} is the peer's claim: the array grows as the bytes arrive, never ahead of them. */
        @Override
        public byte[] readBytes(int n) {
            byte[] out = new byte[Math.min(n, chunk.length - pos)];
            int off = 0;
            while (off < n) {
                if (!ensure()) throw truncated();
                if (off == out.length) out = Arrays.copyOf(out, (int) Math.min(n, Math.max(2L * off, off + chunk.length - pos)));
                int take = Math.min(out.length - off, chunk.length - pos);
                System.arraycopy(chunk, pos, out, off, take);
                pos += take;
                off += take;
            }
            return out;
        }
    };

    private ScanSourceException truncated() {
        return new ScanSourceException("the scan stream of " + peer + " ended inside a record", null);
    }

    @Override
    public void close() {
        closed = true;
        Channel ch = channel;
        if (ch != null) ch.close();
    }

    /** Event-loop side: queues body bytes, and asks for more only below the high-water mark. */
    private final class Reader extends SimpleChannelInboundHandler<HttpObject> {
        private boolean failed;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (failed) return;
            if (msg instanceof HttpResponse r && r.status().code() != 200) {
                failed = true;
                queue.add(new ScanSourceException(peer + " answered the scan with " + r.status(), null));
                ctx.close();
                return;
            }
            if (msg instanceof HttpResponse r
                    && !MemberAnswer.isMembersStream(secret, requestProof, r.headers().get(ClusterSecret.ANSWER_HEADER))) {
                failed = true;
                queue.add(new ScanSourceException(peer + " answered the scan " + MemberAnswer.lacking(secret), null));
                ctx.close();
                return;
            }
            heardAt = System.nanoTime();
            if (msg instanceof HttpResponse) answered = true;
            if (msg instanceof HttpContent c) {
                if (c.content().isReadable()) {
                    byte[] bytes = ByteBufUtil.getBytes(c.content());
                    buffered.addAndGet(bytes.length);
                    queue.add(bytes);
                }
                if (msg instanceof LastHttpContent) {
                    failed = true; // nothing more is expected on this connection
                    queue.add(END);
                    ctx.close();
                }
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (failed) return;
            if (buffered.get() < HIGH_WATER) {
                ctx.read();
            } else {
                paused = true;
                // the consumer may have drained meanwhile and missed the flag: check again
                if (buffered.get() < LOW_WATER && paused) {
                    paused = false;
                    ctx.read();
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!failed) {
                failed = true;
                queue.add(new ScanSourceException("the scan stream of " + peer + " was cut before its end", null));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!failed) {
                failed = true;
                queue.add(new ScanSourceException("the scan stream of " + peer + " failed: " + cause, cause));
            }
            ctx.close();
        }
    }
}
