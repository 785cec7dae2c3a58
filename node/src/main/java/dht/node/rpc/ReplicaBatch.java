package dht.node.rpc;

import dht.storage.Entry;
import java.lang.foreign.MemorySegment;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The batched point protocol ({@code POST /internal/v0/batch}, docs/wire-format.md "Batched point
 * operations"): several replica operations for one peer in one exchange, and their results in the
 * same order. Shared by both sides so they cannot drift apart.
 *
 * <p>Invariants: decoding either message reads it whole or throws {@link Malformed}, so a replica
 * applies nothing of a batch it cannot read; every byte array a decoded message holds is a copy.
 */
final class ReplicaBatch {
    static final byte GET = 1;
    static final byte PUT = 2;
    static final byte DELETE = 3;

    static final byte FOUND = 1;
    static final byte TOMBSTONE = 2;
    static final byte NOT_FOUND = 3;
    static final byte WRITTEN = 4;
    static final byte FAILED = 5;
    /** A read whose value did not fit the answer's budget: the coordinator asks for it alone. */
    static final byte ASK_ALONE = 6;

    /**
     * The values one batch answer carries at most, in bytes: a batch of reads of large values
     * would otherwise make one answer of up to 128 times the largest value, past what the
     * coordinator accepts and a -Xmx128m node can hold twice.
     */
    static final int MAX_ANSWER_VALUE_BYTES = 1024 * 1024;

    /** Upper bound on operations in one message, so a malformed count cannot make a reader allocate much. */
    static final int MAX_OPS = 4096;

    private ReplicaBatch() {}

    /**
     * One operation: a read of {@code key}, or a write of an entry (value or tombstone) with its
     * timestamp and, for a value, its expiry (epoch milliseconds, 0 for never). A decoded PUT's value
     * is an array, or, when decoded with borrowing, {@code borrowed}: a view of the message's buffer,
     * valid as long as that is.
     */
    record Op(byte kind, byte[] key, long timestamp, byte[] value, MemorySegment borrowed, long expiry) {
        Op(byte kind, byte[] key, long timestamp, byte[] value) {
            this(kind, key, timestamp, value, null, 0);
        }

        static Op read(byte[] key) {
            return new Op(GET, key, 0, null);
        }

        static Op write(Entry e) {
            return e.isTombstone() ? new Op(DELETE, e.key(), e.timestamp(), null)
                    : new Op(PUT, e.key(), e.timestamp(), e.value(), null, e.expiryWord());
        }

        boolean isWrite() {
            return kind != GET;
        }

        Entry entry() {
            if (kind != PUT) return Entry.tombstone(key, timestamp);
            return borrowed != null ? Entry.value(key, borrowed, timestamp, expiry) : Entry.value(key, value, timestamp, expiry);
        }

        int encodedSize() {
            return 1 + 4 + key.length + (kind == GET ? 0 : 8) + (kind == PUT ? 8 + 4 + value.length : 0);
        }
    }

    /** One operation's outcome; a found value's expiry as in {@link Op}. */
    record Result(byte status, long timestamp, byte[] value, String error, long expiry) {
        Result(byte status, long timestamp, byte[] value, String error) {
            this(status, timestamp, value, error, 0);
        }

        static final Result NOT_FOUND_RESULT = new Result(NOT_FOUND, 0, null, null);
        static final Result WRITTEN_RESULT = new Result(WRITTEN, 0, null, null);
        static final Result ASK_ALONE_RESULT = new Result(ASK_ALONE, 0, null, null);

        static Result of(Entry e) {
            if (e == null) return NOT_FOUND_RESULT;
            return e.isTombstone() ? new Result(TOMBSTONE, e.timestamp(), null, null)
                    : new Result(FOUND, e.timestamp(), e.value(), null, e.expiryWord());
        }

        static Result failed(String error) {
            return new Result(FAILED, 0, null, error);
        }

        int encodedSize() {
            return 1 + switch (status) {
                case FOUND -> 8 + 8 + 4 + value.length;
                case TOMBSTONE -> 8;
                case FAILED -> 4 + error.getBytes(StandardCharsets.UTF_8).length;
                default -> 0;
            };
        }
    }

    /** A message that does not follow the format; the reason says where. */
    static final class Malformed extends Exception {
        Malformed(String reason) {
            super(reason);
        }
    }

    static byte[] encodeOps(List<Op> ops) {
        int size = 4;
        for (Op op : ops) size += op.encodedSize();
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(ops.size());
        for (Op op : ops) {
            b.put(op.kind).putInt(op.key.length).put(op.key);
            if (op.kind != GET) b.putLong(op.timestamp);
            if (op.kind == PUT) b.putLong(op.expiry).putInt(op.value.length).put(op.value);
        }
        return b.array();
    }

    static List<Op> decodeOps(byte[] body) throws Malformed {
        return decodeOps(ByteBuffer.wrap(body), false);
    }

    /**
     * The operations of {@code b}'s remaining bytes; with {@code borrow}, each PUT's value is a view
     * of {@code b} ({@link Op#borrowed}), not copied: the caller keeps {@code b}'s memory valid until
     * the store is done with them.
     */
    static List<Op> decodeOps(ByteBuffer b, boolean borrow) throws Malformed {
        try {
            int n = count(b);
            List<Op> ops = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte kind = b.get();
                if (kind != GET && kind != PUT && kind != DELETE) throw new Malformed("operation " + i + ": unknown kind " + kind);
                byte[] key = bytes(b, "operation " + i + " key");
                if (key.length == 0) throw new Malformed("operation " + i + ": empty key");
                long ts = kind == GET ? 0 : b.getLong();
                long expiry = kind == PUT ? expiry(b, "operation " + i) : 0;
                if (kind == PUT && borrow) {
                    int len = length(b, "operation " + i + " value");
                    ops.add(new Op(kind, key, ts, null, MemorySegment.ofBuffer(b.slice(b.position(), len)), expiry));
                    b.position(b.position() + len);
                    continue;
                }
                byte[] value = kind == PUT ? bytes(b, "operation " + i + " value") : null;
                ops.add(new Op(kind, key, ts, value, null, expiry));
            }
            if (b.hasRemaining()) throw new Malformed(b.remaining() + " bytes after the last operation");
            return ops;
        } catch (BufferUnderflowException e) {
            throw new Malformed("message ends inside an operation");
        }
    }

    /**
     * {@code r}, or {@link #ASK_ALONE} when its value would take the values an answer holds
     * ({@code used}, shared by the answer's reads) past {@link #MAX_ANSWER_VALUE_BYTES}; called as
     * each read completes, so that a value past the budget is let go at once, not held until the
     * whole batch is in.
     */
    static Result capped(Result r, AtomicLong used) {
        if (r.status != FOUND) return r;
        long after = used.addAndGet(r.value.length);
        if (after <= MAX_ANSWER_VALUE_BYTES) return r;
        used.addAndGet(-r.value.length);
        return Result.ASK_ALONE_RESULT;
    }

    static byte[] encodeResults(List<Result> results) {
        int size = 4;
        for (Result r : results) size += r.encodedSize();
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(results.size());
        for (Result r : results) {
            b.put(r.status);
            switch (r.status) {
                case FOUND -> b.putLong(r.timestamp).putLong(r.expiry).putInt(r.value.length).put(r.value);
                case TOMBSTONE -> b.putLong(r.timestamp);
                case FAILED -> {
                    byte[] msg = r.error.getBytes(StandardCharsets.UTF_8);
                    b.putInt(msg.length).put(msg);
                }
                default -> {
                }
            }
        }
        return b.array();
    }

    static List<Result> decodeResults(byte[] body, int expected) throws Malformed {
        ByteBuffer b = ByteBuffer.wrap(body);
        try {
            int n = count(b);
            if (n != expected) throw new Malformed(n + " results for " + expected + " operations");
            List<Result> results = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                byte status = b.get();
                results.add(switch (status) {
                    case FOUND -> {
                        long ts = b.getLong();
                        long expiry = expiry(b, "result " + i);
                        yield new Result(FOUND, ts, bytes(b, "result " + i + " value"), null, expiry);
                    }
                    case TOMBSTONE -> new Result(TOMBSTONE, b.getLong(), null, null);
                    case NOT_FOUND -> Result.NOT_FOUND_RESULT;
                    case WRITTEN -> Result.WRITTEN_RESULT;
                    case ASK_ALONE -> Result.ASK_ALONE_RESULT;
                    case FAILED -> Result.failed(new String(bytes(b, "result " + i + " error"), StandardCharsets.UTF_8));
                    default -> throw new Malformed("result " + i + ": unknown status " + status);
                });
            }
            if (b.hasRemaining()) throw new Malformed(b.remaining() + " bytes after the last result");
            return results;
        } catch (BufferUnderflowException e) {
            throw new Malformed("message ends inside a result");
        }
    }

    private static int count(ByteBuffer b) throws Malformed {
        int n = b.getInt();
        if (n < 1 || n > MAX_OPS) throw new Malformed("count " + n + " not in 1.." + MAX_OPS);
        return n;
    }

    private static long expiry(ByteBuffer b, String what) throws Malformed {
        long expiry = b.getLong();
        if (!Entry.isExpiryWord(expiry)) throw new Malformed(what + ": not an expiry word " + expiry);
        return expiry;
    }

    private static int length(ByteBuffer b, String what) throws Malformed {
        int len = b.getInt();
        if (len < 0 || len > b.remaining()) throw new Malformed(what + ": length " + len + " beyond the message");
        return len;
    }

    private static byte[] bytes(ByteBuffer b, String what) throws Malformed {
        byte[] out = new byte[length(b, what)];
        b.get(out);
        return out;
    }
}
