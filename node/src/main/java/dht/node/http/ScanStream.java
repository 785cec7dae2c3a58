package dht.node.http;

import dht.node.cluster.ClusterScanner;
import dht.node.cluster.WritesInFlight;
import dht.node.rpc.StreamSeal;
import dht.storage.CloseableIterator;
import dht.storage.Entry;
import dht.storage.ReadBudgetExceededException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams a range scan to the client with backpressure. A worker thread (never the event loop: the
 * iterator reads storage or waits for peers) pulls entries lazily, packs them into a batch of about
 * {@link #BATCH_BYTES}, and hands the batch to the event loop, which writes and flushes it. The
 * worker then waits until that batch has been written and the channel is writable again before
 * reading on, so what the scan holds in memory is bounded by one batch plus the channel's high water
 * mark, whatever the size of the result. The store's values are read in place (borrowed, valid until
 * the iterator is closed) and an entry larger than a batch goes out in pieces ({@link EntryPieces}),
 * so neither does it grow with the size of a value.
 *
 * <p>The response head goes out with the first batch, so a scan that fails before producing anything
 * is answered with a plain error status (504 for an incomplete cluster scan, 503 with Retry-After
 * when the scan memory budget cannot take a block the store must decompress, 500 otherwise). A scan
 * that fails after that is cut off by closing the connection without the terminating chunk: the
 * client can tell it from a complete answer. A client that disconnects stops the worker at its next
 * entry; the iterator is closed and the permit released as the worker leaves. A scan with a limit
 * ends, complete, once that many entries went out, without reading the iterator further.
 */
public final class ScanStream implements ResponseStream {
    private static final Logger log = LoggerFactory.getLogger(ScanStream.class);
    static final int BATCH_BYTES = 32 * 1024;
    /** A batch waiting on a slow source (a peer) is sent after this long rather than held back. */
    private static final long MAX_BATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    /**
     * A client that takes nothing for this long loses its scan (the connection is closed): it would
     * otherwise hold a scan worker, an iterator and a scan permit for as long as it likes. Tests
     * lower it.
     */
    static volatile long stallTimeoutNanos = TimeUnit.SECONDS.toNanos(120);

    /** Opens the iterator; called on the worker thread. */
    @FunctionalInterface
    public interface Source {
        CloseableIterator<Entry> open() throws IOException;
    }

    private final Source source;
    private final EntryFormat format;
    private final Executor workers;
    private final Runnable onReleased;
    private final String description;
    /** Entries counted by {@link EntryFormat#countsTowardLimit} after which the stream ends; 0: no limit. */
    private final int limit;
    private long counted; // worker only

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile boolean cancelled;
    private boolean batchPending; // guarded by lock

    // Set in start(), on the event loop, before the worker starts (so visible to it).
    private ChannelHandlerContext ctx;
    private Done done;
    /** Set before it starts ({@link #proveWith}), read on the event loop once it has. */
    private volatile String answerProof;
    /** Set with it for a {@link EntryFormat#WIRE} stream under a cluster secret; then used by the worker alone. */
    private volatile StreamSeal seal;
    private boolean keepAlive;
    private boolean http10;
    // Event loop only.
    private boolean headSent;
    private boolean over;

    public ScanStream(Source source, EntryFormat format, Executor workers, Runnable onReleased, String description) {
        this(source, format, workers, onReleased, description, 0);
    }

    /**
     * As above, ending the stream (complete, with its terminating chunk) once {@code limit} entries
     * that count toward it went out, without asking the source for more; 0 for no limit.
     */
    public ScanStream(Source source, EntryFormat format, Executor workers, Runnable onReleased, String description,
                      int limit) {
        if (limit < 0) throw new IllegalArgumentException("scan limit " + limit);
        this.limit = limit;
        this.source = source;
        this.format = format;
        this.workers = workers;
        this.onReleased = onReleased;
        this.description = description;
    }

    @Override
    public void start(ChannelHandlerContext ctx, boolean keepAlive, boolean http10, Done done) {
        this.ctx = ctx;
        this.done = done;
        this.keepAlive = keepAlive;
        this.http10 = http10;
        startWorker();
    }

    private void startWorker() {
        try {
            workers.execute(this::run);
        } catch (RejectedExecutionException e) {
            onReleased.run();
            finishWith(Responses.overloaded("shutting down"));
        } catch (Error e) {
            // No worker (out of heap or threads): the permit goes back here, as no worker will give
            // it back, and the sequencer that started this closes the connection.
            onReleased.run();
            throw e;
        }
    }

    @Override
    public void writabilityChanged() {
        signal();
    }

    @Override
    public void cancel() {
        cancelled = true;
        signal();
    }

    @Override
    public void discard() {
        cancelled = true;
        onReleased.run();
    }

    private void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        CloseableIterator<Entry> it = null;
        try {
            it = source.open();
            pump(it);
        } catch (WritesInFlight.StillInFlightException e) {
            // A join stream's sender waits for writes to reach its store first: busy, ask again.
            log.warn("scan {} not started: {}", description, e.getMessage());
            fail(() -> Responses.text(HttpResponseStatus.SERVICE_UNAVAILABLE, e.getMessage()));
        } catch (ClusterScanner.IncompleteScanException e) {
            log.warn("scan {} cut short: {}", description, e.getMessage());
            fail(() -> Responses.text(HttpResponseStatus.GATEWAY_TIMEOUT, "scan incomplete: " + e.getMessage()));
        } catch (java.io.UncheckedIOException e) {
            if (e.getCause() instanceof ReadBudgetExceededException r) {
                // Many scans at once: an expected condition, which a retry later may not meet again.
                log.warn("scan {} refused: the scan memory budget cannot take {} more bytes now", description, r.bytes());
                fail(() -> Responses.overloaded("overloaded: too much scan memory in use"));
                return;
            }
            // Damaged data (the engine already logged file and offset) or an I/O failure: an
            // expected kind of failure, reported in one line.
            log.error("scan {} failed: {}", description, e.getCause().toString());
            fail(() -> Responses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "scan failed: " + e.getCause().getMessage()));
        } catch (Throwable t) {
            log.error("scan {} failed", description, t);
            fail(() -> Responses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "scan failed"));
        } finally {
            if (it != null) {
                try {
                    it.close();
                } catch (RuntimeException e) {
                    log.warn("closing scan {} iterator failed: {}", description, e.toString());
                }
            }
            onReleased.run();
        }
    }

    private void pump(CloseableIterator<Entry> it) throws InterruptedException {
        EntryPieces large = null;
        while (true) {
            if (!awaitWritable()) return;
            List<Object> batch = new ArrayList<>();
            if (large != null) {
                // A large entry goes out a piece per round, before the iterator is asked for more:
                // its value is read in place and must stay valid until its last piece is copied.
                ByteBuf piece = large.next(ctx.alloc());
                if (seal != null) seal.update(piece.nioBuffer());
                batch.add(large.raw() ? new RawBytes(piece) : new DefaultHttpContent(piece));
                if (!large.hasNext()) {
                    large = null;
                    seal(batch, false);
                }
                submit(batch, false);
                continue;
            }
            ByteBuf buf = null;
            boolean end = false;
            int bytes = 0;
            long started = System.nanoTime();
            try {
                while (bytes < BATCH_BYTES) {
                    if (cancelled) return;
                    if (limit > 0 && counted >= limit) {
                        end = true;
                        break;
                    }
                    if (bytes > 0 && System.nanoTime() - started > MAX_BATCH_NANOS) break;
                    if (!it.hasNext()) {
                        end = true;
                        break;
                    }
                    Entry e = it.next();
                    if (!format.includes(e)) continue;
                    if (format.countsTowardLimit(e)) counted++;
                    int size = format.size(e);
                    if (size > EntryPieces.PIECE) {
                        large = new EntryPieces(format, e);
                        break;
                    }
                    if (buf == null || buf.writableBytes() < size) {
                        if (buf != null) {
                            cut(buf, batch);
                            buf.release();
                        }
                        buf = ctx.alloc().buffer(Math.max(BATCH_BYTES, size));
                    }
                    format.write(e, buf);
                    bytes += size;
                    if (format.chunkPerEntry() && !http10) cut(buf, batch);
                }
                if (buf != null) cut(buf, batch);
                seal(batch, end);
            } finally {
                if (buf != null) buf.release();
                if (cancelled) release(batch);
            }
            submit(batch, end);
            if (end) return;
        }
    }

    /** Ends the batch's run of records with a seal, the last if {@code end}; nothing without a seal. */
    private void seal(List<Object> batch, boolean end) {
        if (seal == null) return;
        ByteBuf b = ctx.alloc().buffer(1 + StreamSeal.MAC_BYTES);
        seal.writeSeal(end, b);
        batch.add(new DefaultHttpContent(b));
    }

    /** A piece of a large entry that frames its own chunk: written below the HTTP encoder. */
    private static final class RawBytes extends DefaultByteBufHolder {
        RawBytes(ByteBuf data) {
            super(data);
        }
    }

    /** Moves what {@code buf} holds beyond its reader index into a chunk of the batch (and its seal). */
    private void cut(ByteBuf buf, List<Object> batch) {
        int n = buf.readableBytes();
        if (n == 0) return;
        if (seal != null) seal.update(buf.nioBuffer(buf.readerIndex(), n));
        batch.add(new DefaultHttpContent(buf.retainedSlice(buf.readerIndex(), n)));
        buf.skipBytes(n);
    }

    private static void release(List<Object> batch) {
        for (Object c : batch) ReferenceCountUtil.release(c);
        batch.clear();
    }

    /** Blocks until the previous batch is written and the channel can take more; false if cancelled. */
    private boolean awaitWritable() throws InterruptedException {
        long waitStart = System.nanoTime();
        lock.lock();
        try {
            while (!cancelled && (batchPending || !ctx.channel().isWritable())) {
                if (!ctx.channel().isActive()) {
                    cancelled = true;
                    break;
                }
                if (System.nanoTime() - waitStart > stallTimeoutNanos) {
                    log.warn("scan {}: client {} read nothing for {} s, closing its connection", description,
                            ctx.channel().remoteAddress(), TimeUnit.NANOSECONDS.toSeconds(stallTimeoutNanos));
                    cancelled = true;
                    ctx.channel().close();
                    break;
                }
                changed.await(100, TimeUnit.MILLISECONDS);
            }
            batchPending = true;
            return !cancelled;
        } finally {
            lock.unlock();
        }
    }

    private void submit(List<Object> batch, boolean end) {
        execute(() -> {
            if (over || cancelled || !ctx.channel().isActive()) {
                release(batch);
                batchWritten();
                return;
            }
            if (!headSent) {
                ctx.write(head());
                headSent = true;
            }
            for (Object c : batch) {
                if (c instanceof RawBytes r) {
                    ChannelHandlerContext below = belowEncoder();
                    below.write(r.content(), below.voidPromise());
                } else {
                    ctx.write(c, ctx.voidPromise());
                }
            }
            if (end) {
                over = true;
                ctx.writeAndFlush(http10 ? new DefaultHttpContent(io.netty.buffer.Unpooled.EMPTY_BUFFER)
                        : LastHttpContent.EMPTY_LAST_CONTENT);
                done.finished(http10);
            } else {
                ctx.flush();
            }
            batchWritten();
        }, () -> release(batch));
    }

    private void batchWritten() {
        lock.lock();
        try {
            batchPending = false;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Where bytes that frame their own chunk are written: the context of the HTTP codec, so that
     * they go on to the handlers below it (TLS, the socket) as they are. Writes from both contexts
     * happen on the event loop, and the encoder passes on what it encodes as it gets it, so the
     * order on the wire is the order written.
     */
    private ChannelHandlerContext belowEncoder() {
        ChannelHandlerContext codec = ctx.pipeline().context(HttpServerCodec.class);
        return codec != null ? codec : ctx;
    }

    @Override
    public void proveWith(String answerProof, StreamSeal seal) {
        this.answerProof = answerProof;
        if (format == EntryFormat.WIRE) this.seal = seal;
    }

    private HttpResponse head() {
        HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        if (answerProof != null) r.headers().set(dht.node.rpc.ClusterSecret.ANSWER_HEADER, answerProof);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM);
        if (http10) {
            r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else {
            r.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            if (!keepAlive) r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return r;
    }

    /** Ends the scan: with {@code answer} if nothing was sent yet, else cut short. */
    private void fail(java.util.function.Supplier<io.netty.handler.codec.http.FullHttpResponse> answer) {
        execute(() -> {
            if (over) return;
            if (headSent) {
                over = true;
                done.finished(true); // no terminating chunk: the client sees a cut-short body
            } else {
                finishWith(answer.get());
            }
        }, () -> { });
    }

    /** Event loop: answer with a complete response instead of a stream. */
    private void finishWith(io.netty.handler.codec.http.FullHttpResponse r) {
        if (over) {
            r.release();
            return;
        }
        over = true;
        headSent = true;
        if (!keepAlive) r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        if (answerProof != null) r.headers().set(dht.node.rpc.ClusterSecret.ANSWER_HEADER, answerProof);
        ctx.writeAndFlush(r);
        done.finished(false);
    }

    private void execute(Runnable task, Runnable ifRejected) {
        try {
            ctx.executor().execute(task);
        } catch (RejectedExecutionException e) {
            ifRejected.run();
        }
    }
}
