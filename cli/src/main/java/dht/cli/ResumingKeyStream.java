package dht.cli;

import java.io.IOException;
import java.util.Arrays;

/**
 * One node's keys over as many range streams as it takes: when a stream is cut short, or has been
 * open for {@link #MAX_STREAM_NANOS}, the next one starts right after the last key read.
 *
 * <p>Why: a merge reads a node's stream only while that node's next key is the smallest waiting,
 * so a node that holds nothing in a long stretch of the range is not read while the others' keys
 * there are repaired. The node closes a stream nobody has read for a while (its stall timeout),
 * which must not end the repair; and every open stream holds a scan permit and the store's
 * snapshot on its node (tables that compaction has replaced stay on disk), which should not last
 * for a whole repair of a large database. Resuming is exact: keys are streamed in order, and the
 * smallest key after {@code k} is {@code k} followed by a zero byte.
 *
 * <p>A node that answers 503 (its scans all taken) is asked again a second later, a few times.
 * A stream that is cut again and again without yielding a key fails for good, as does one that
 * times out (a frozen node would only time out again).
 */
final class ResumingKeyStream implements KeyMerge.Source {
    /** Opens one range stream of the node from {@code start} (inclusive; empty: the first key). */
    interface Opener {
        NodeKeyStream open(byte[] start) throws IOException;
    }

    static final long MAX_STREAM_NANOS = 60_000_000_000L;
    private static final int CUTS_WITHOUT_PROGRESS = 3;
    private static final int BUSY_ATTEMPTS = 5;
    private static final long BUSY_WAIT_MILLIS = 1_000;

    private final String node;
    private final Opener opener;
    private final long maxStreamNanos;
    private NodeKeyStream current;
    private long openedAt;
    private byte[] lastKey;
    private final byte[] start;
    private int cutsInARow;
    private int resumes;

    private ResumingKeyStream(String node, byte[] start, Opener opener, long maxStreamNanos) {
        this.node = node;
        this.start = start;
        this.opener = opener;
        this.maxStreamNanos = maxStreamNanos;
    }

    /** Opens the first stream at once, so that a node that cannot be streamed is known before the merge starts. */
    static ResumingKeyStream open(String node, byte[] start, Opener opener) throws IOException {
        return open(node, start, opener, MAX_STREAM_NANOS);
    }

    static ResumingKeyStream open(String node, byte[] start, Opener opener, long maxStreamNanos) throws IOException {
        ResumingKeyStream s = new ResumingKeyStream(node, start, opener, maxStreamNanos);
        s.reopen();
        return s;
    }

    @Override
    public String name() {
        return node;
    }

    /** How many times a stream was opened again after the first. */
    int resumes() {
        return resumes;
    }

    @Override
    public byte[] next() throws IOException {
        while (true) {
            if (current == null || System.nanoTime() - openedAt > maxStreamNanos) {
                if (current != null) resumes++;
                reopen();
            }
            try {
                byte[] key = current.next();
                if (key == null) {
                    close();
                    return null;
                }
                lastKey = key;
                cutsInARow = 0;
                return key;
            } catch (NodeKeyStream.CutShortException e) {
                current.close();
                current = null;
                if (++cutsInARow >= CUTS_WITHOUT_PROGRESS) throw e;
                resumes++;
            }
        }
    }

    private void reopen() throws IOException {
        if (current != null) current.close();
        current = null;
        byte[] from = lastKey == null ? start : Arrays.copyOf(lastKey, lastKey.length + 1);
        for (int attempt = 1; ; attempt++) {
            try {
                current = opener.open(from);
                openedAt = System.nanoTime();
                return;
            } catch (NodeKeyStream.BusyException e) {
                if (attempt >= BUSY_ATTEMPTS) throw e;
                try {
                    Thread.sleep(BUSY_WAIT_MILLIS);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", ie);
                }
            }
        }
    }

    @Override
    public void close() {
        if (current != null) current.close();
        current = null;
    }
}
