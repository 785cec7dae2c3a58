package dht.node.cluster;

import dht.storage.Entry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Some of one peer's hints taken together, with what reading their writes back takes: each
 * hint's entry while it is still in memory, else its file and offset. Built holding the lock of
 * the {@link HintedHandoff} that holds the hints (their fields are guarded by it).
 */
final class HintBatch {
    private static final long READ_SECONDS = 30;

    private final String peer;
    final List<Hint> hints;
    /** Per hint, its entry if still in memory, else null until read back. */
    final Entry[] values;
    private final long[] segments;
    private final long[] offsets;
    /** Null: hints in memory only. */
    private final HintFiles files;

    HintBatch(String peer, List<Hint> hints, HintFiles files) {
        this.peer = peer;
        this.files = files;
        this.hints = List.copyOf(hints);
        values = new Entry[this.hints.size()];
        segments = new long[values.length];
        offsets = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = this.hints.get(i).entry;
            segments[i] = this.hints.get(i).file;
            offsets[i] = this.hints.get(i).offset;
        }
    }

    /** Whether every write is in memory, so nothing needs reading back. */
    boolean inMemory() {
        return !Arrays.asList(values).contains(null);
    }

    /** Fills {@link #values} from the peer's files where null ({@link HintFiles#read}); needs files. */
    CompletableFuture<Entry[]> read() {
        return files.read(peer, segments, offsets, values);
    }

    /**
     * The writes, read back where needed; one whose record is not there (its hint delivered or
     * dropped meanwhile, or its file damaged) is left out.
     */
    List<Entry> entries() throws IOException, InterruptedException {
        if (files != null && !inMemory()) {
            try {
                read().get(READ_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new IOException("the hints for " + peer + " could not be read back: " + e);
            }
        }
        List<Entry> out = new ArrayList<>(values.length);
        for (int i = 0; i < values.length; i++) {
            if (hints.get(i).is(values[i])) out.add(values[i]);
        }
        return out;
    }

    /** As {@link #entries()}, for a caller that gives up when interrupted: an IOException then, the thread's flag set again. */
    List<Entry> entriesOrIOException() throws IOException {
        try {
            return entries();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading back the hints for " + peer);
        }
    }
}
