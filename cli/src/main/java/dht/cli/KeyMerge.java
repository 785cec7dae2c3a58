package dht.cli;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.BiConsumer;

/**
 * A k-way merge of sorted key streams into one, each key once, in unsigned byte order (the order
 * the nodes store and stream keys in). Holds one key per stream, whatever their size.
 *
 * <p>A stream that fails is reported to {@code onFailure} and dropped, and the merge goes on with
 * the others: the keys only it held after its last whole record are then missing from the merge,
 * which the caller must report as an incomplete result.
 */
final class KeyMerge implements AutoCloseable {
    /** One sorted stream of keys. */
    interface Source extends AutoCloseable {
        String name();

        /** The next key, greater than the last; null at the stream's complete end. */
        byte[] next() throws IOException;

        @Override
        void close();
    }

    private record Head(byte[] key, Source source) {
    }

    private final PriorityQueue<Head> heads = new PriorityQueue<>((a, b) -> Arrays.compareUnsigned(a.key, b.key));
    private final List<? extends Source> sources;
    private final BiConsumer<Source, IOException> onFailure;

    KeyMerge(List<? extends Source> sources, BiConsumer<Source, IOException> onFailure) {
        this.sources = sources;
        this.onFailure = onFailure;
        for (Source s : sources) advance(s);
    }

    /** The next distinct key, or null when every stream has ended or failed. */
    byte[] next() {
        Head smallest = heads.poll();
        if (smallest == null) return null;
        advance(smallest.source);
        while (!heads.isEmpty() && Arrays.equals(heads.peek().key, smallest.key)) advance(heads.poll().source);
        return smallest.key;
    }

    private void advance(Source s) {
        try {
            byte[] k = s.next();
            if (k != null) {
                heads.add(new Head(k, s));
            } else {
                s.close();
            }
        } catch (IOException e) {
            s.close();
            onFailure.accept(s, e);
        }
    }

    @Override
    public void close() {
        for (Source s : sources) s.close();
    }
}
