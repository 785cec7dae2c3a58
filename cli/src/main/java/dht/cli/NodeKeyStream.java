package dht.cli;

import dht.node.rpc.ClusterSecret;
import dht.node.rpc.MemberAnswer;
import dht.node.rpc.StreamSeal;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.LongAdder;

/**
 * The keys one node holds in a range, tombstones included, read from its internal range stream
 * ({@code GET /internal/v0/entities}, docs/wire-format.md "Range stream") one record at a time:
 * values are skipped, never held, so the data may be far larger than the heap.
 *
 * <p>Why {@link HttpURLConnection} rather than the JDK's newer client: it has a read timeout, so a
 * node that freezes mid-stream ends the read with an exception instead of blocking it for ever,
 * and it reports a chunked body cut before its terminating chunk as an {@link IOException}, which
 * is how a node says the stream is incomplete.
 */
final class NodeKeyStream implements KeyMerge.Source {
    /** Far above any key the HTTP API can take (its URI limit): a larger length is a broken stream. */
    private static final int MAX_KEY_BYTES = 16 << 20;

    private final String node;
    private final HttpURLConnection connection;
    private final DataInputStream in;
    /** With a cluster secret: the stream's seals, fed by {@code feed}; keys wait in {@code unsealed} until one holds. */
    private final StreamSeal seal;
    private final SealFeed feed;
    private final ArrayDeque<byte[]> unsealed = new ArrayDeque<>();
    private final ArrayDeque<byte[]> proven = new ArrayDeque<>();
    private boolean lastSeal;

    private NodeKeyStream(String node, HttpURLConnection connection, InputStream body, StreamSeal seal) {
        this.node = node;
        this.connection = connection;
        this.seal = seal;
        this.feed = seal == null ? null : new SealFeed(body, seal);
        this.in = new DataInputStream(feed == null ? body : feed);
    }

    /** The node answered 503: all its scans are taken for now, so opening again later may work. */
    static final class BusyException extends IOException {
        BusyException() { super("answered 503 (busy)"); }
    }

    /** The node refused the request for the cluster secret: missing (401) or another one (403). */
    static final class SecretRefusedException extends IOException {
        SecretRefusedException(int status) {
            super("answered " + status + ": " + (status == 401 ? "the cluster has a secret and none was given"
                    : "the secret given is not the cluster's"));
        }
    }

    /**
     * The stream stopped before its terminating chunk, or inside a record: the node cut it (it
     * closes a stream nobody read for a while, or it stopped). What came before is sound, so the
     * keys after the last one read can be asked for again ({@link ResumingKeyStream}).
     */
    static final class CutShortException extends IOException {
        CutShortException(String message, Throwable cause) { super(message, cause); }
    }

    /** A record whose lengths cannot be: the node's stream is broken, and asking again would not mend it. */
    private static final class MalformedException extends IOException {
        MalformedException(String what) { super("malformed record: " + what); }
    }

    /**
     * Opens {@code node}'s stream of {@code [start, end)} ({@code start} empty: from the first key;
     * {@code end} null: no end), counting every byte of it in {@code streamed}.
     *
     * @throws IOException in words for the user when the node cannot be connected to, does not
     *                     answer within {@code timeoutSeconds}, or answers other than 200
     *                     ({@link BusyException} for a 503)
     */
    static NodeKeyStream open(String node, byte[] start, String end, int timeoutSeconds, LongAdder streamed) throws IOException {
        return open(node, start, end, timeoutSeconds, streamed, null);
    }

    /** As above, proving {@code secret} (null: none), as a cluster with a secret requires of internal requests. */
    static NodeKeyStream open(String node, byte[] start, String end, int timeoutSeconds, LongAdder streamed,
                              ClusterSecret secret) throws IOException {
        StringBuilder target = new StringBuilder("/internal/v0/entities?");
        if (start.length > 0) target.append("start=").append(ClientOptions.encode(start)).append('&');
        if (end != null) target.append("end=").append(ClientOptions.encode(end));
        HttpURLConnection c = (HttpURLConnection) URI.create(node + target).toURL().openConnection();
        String proof = null;
        if (secret != null) {
            proof = secret.sign("GET", target.toString(), new byte[0], System.currentTimeMillis());
            c.setRequestProperty(ClusterSecret.HEADER, proof);
        }
        c.setConnectTimeout(5_000);
        c.setReadTimeout(timeoutSeconds * 1000);
        c.setUseCaches(false);
        try {
            int status = c.getResponseCode();
            if (status == 503) throw new BusyException();
            if (status == 401 || status == 403) throw new SecretRefusedException(status);
            if (status != 200) throw new IOException("answered " + status);
            if (!MemberAnswer.isMembersStream(secret, proof, c.getHeaderField(ClusterSecret.ANSWER_HEADER))) {
                throw new IOException("answered " + MemberAnswer.lacking(secret));
            }
            InputStream counted = new FilterInputStream(c.getInputStream()) {
                @Override
                public int read() throws IOException {
                    int b = super.read();
                    if (b >= 0) streamed.increment();
                    return b;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    int n = super.read(b, off, len);
                    if (n > 0) streamed.add(n);
                    return n;
                }

                @Override
                public long skip(long n) throws IOException {
                    long skipped = super.skip(n); // values are skipped, not read, and they count too
                    streamed.add(skipped);
                    return skipped;
                }
            };
            return new NodeKeyStream(node, c, new BufferedInputStream(counted, 1 << 16),
                    secret == null ? null : secret.streamSeal(proof));
        } catch (ConnectException e) {
            c.disconnect();
            throw new IOException("connection refused", e);
        } catch (SocketTimeoutException e) {
            c.disconnect();
            throw new IOException("no answer within " + timeoutSeconds + " s", e);
        } catch (IOException | RuntimeException e) {
            c.disconnect();
            throw e;
        }
    }

    @Override
    public String name() {
        return node;
    }

    /** The next key, or null at the stream's complete end; an {@link IOException} if it was cut short. */
    @Override
    public byte[] next() throws IOException {
        try {
            if (seal != null) return nextSealed();
            int flags = in.read();
            if (flags < 0) return null; // the terminating chunk came: the stream is complete
            return key(flags);
        } catch (SocketTimeoutException e) {
            throw new IOException("no data for " + connection.getReadTimeout() / 1000 + " s", e);
        } catch (EOFException e) {
            throw new CutShortException("the stream ended inside a record", e);
        } catch (MalformedException | UnsealedException e) {
            throw e;
        } catch (IOException e) {
            // the JDK's chunked reader says "Premature EOF" when the terminating chunk never came
            throw new CutShortException("the stream was cut short (" + e.getMessage() + ")", e);
        }
    }

    /** Records whose seal does not hold: changed on the way, or not sent by a member. */
    private static final class UnsealedException extends IOException {
        UnsealedException(String what) { super(what); }
    }

    /** As {@link #next}, under a secret: a key only once the seal after its record held (docs/wire-format.md). */
    private byte[] nextSealed() throws IOException {
        while (proven.isEmpty()) {
            int flags = in.read();
            if (flags < 0) {
                if (!lastSeal) throw new CutShortException("the stream ended without its last seal", null);
                return null;
            }
            if (lastSeal) throw new MalformedException("data after the last seal");
            if ((flags & StreamSeal.FLAG) == 0) {
                if (unsealed.size() >= MAX_UNSEALED) throw new MalformedException(MAX_UNSEALED + " records without a seal");
                feed.first(flags);
                try {
                    unsealed.add(key(flags));
                } finally {
                    feed.on = false;
                }
                continue;
            }
            byte[] mac = new byte[StreamSeal.MAC_BYTES];
            in.readFully(mac);
            boolean end = (flags & StreamSeal.END) != 0;
            if (!seal.holds(end, mac)) throw new UnsealedException("records whose seal does not hold: changed on the way, or "
                    + ClusterSecret.UNPROVEN);
            proven.addAll(unsealed);
            unsealed.clear();
            lastSeal = end;
        }
        return proven.poll();
    }

    /** As many records a member sends between seals at most (its batches are 32 KiB). */
    private static final int MAX_UNSEALED = 4096;

    /** The rest of the record whose {@code flags} were read: its key (its value skipped). */
    private byte[] key(int flags) throws IOException {
        in.readLong(); // the version's timestamp: the coordinator compares versions, not us
        if ((flags & 2) != 0) in.readLong(); // the value's expiry (flags bit 1): the coordinator's to judge too
        int keyLength = in.readInt();
        // lengths from the wire are checked before they size an array: a bad one is the node's
        // fault, said as such, not an OutOfMemoryError of ours
        if (keyLength <= 0 || keyLength > MAX_KEY_BYTES) throw new MalformedException("key length " + keyLength);
        byte[] key = new byte[keyLength];
        in.readFully(key);
        int valueLength = in.readInt();
        if (valueLength < 0) throw new MalformedException("value length " + valueLength);
        in.skipNBytes(valueLength);
        return key;
    }

    /** Feeds a seal the bytes read through it while {@link #on}, skipped ones included. */
    private static final class SealFeed extends FilterInputStream {
        private final StreamSeal seal;
        private final byte[] scratch = new byte[8192];
        boolean on;

        SealFeed(InputStream in, StreamSeal seal) {
            super(in);
            this.seal = seal;
        }

        /** A record starts with {@code flags}, read already: fed, and so is the rest of the record. */
        void first(int flags) {
            scratch[0] = (byte) flags;
            seal.update(scratch, 0, 1);
            on = true;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (on && b >= 0) {
                scratch[0] = (byte) b;
                seal.update(scratch, 0, 1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (on && n > 0) seal.update(b, off, n);
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            if (!on) return super.skip(n);
            int got = read(scratch, 0, (int) Math.min(n, scratch.length));
            return Math.max(0, got);
        }
    }

    @Override
    public void close() {
        connection.disconnect();
    }
}
