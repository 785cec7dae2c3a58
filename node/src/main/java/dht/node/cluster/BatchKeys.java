package dht.node.cluster;

import dht.storage.Entry;
import java.util.Arrays;
import java.util.List;

/**
 * The keys of a batch of entries as a tracked write ({@link HashTrees}) needs them, in arrays
 * rather than maps: each entry's {@link MerkleTree#keyHash}, the index of the first entry with
 * the same key, and the distinct lock stripes of the keys, sorted, so that two batches taking
 * them in this order never deadlock.
 */
final class BatchKeys {
    final long[] hashes;
    /** {@code first[i]}: the lowest index whose entry has entry {@code i}'s key ({@code i} itself for a key's first). */
    final int[] first;
    final int[] stripes;

    BatchKeys(List<Entry> entries, int stripeCount) {
        int n = entries.size();
        hashes = new long[n];
        first = new int[n];
        // (stripe, index) packed in one long and sorted: stripes in order, a stripe's entries in batch order
        long[] byStripe = new long[n];
        for (int i = 0; i < n; i++) {
            hashes[i] = MerkleTree.keyHash(entries.get(i).key());
            byStripe[i] = ((hashes[i] & (stripeCount - 1)) << 32) | i;
        }
        Arrays.sort(byStripe);
        int[] s = new int[n];
        int distinct = 0;
        for (int at = 0; at < n; ) {
            int stripe = (int) (byStripe[at] >>> 32);
            int end = at + 1;
            while (end < n && (int) (byStripe[end] >>> 32) == stripe) end++;
            s[distinct++] = stripe;
            // one key's entries share a stripe: match each entry against the earlier ones of its stripe
            for (int a = at; a < end; a++) {
                int i = (int) byStripe[a];
                first[i] = i;
                for (int b = at; b < a; b++) {
                    int j = (int) byStripe[b];
                    if (hashes[j] == hashes[i] && first[j] == j
                            && Arrays.equals(entries.get(j).key(), entries.get(i).key())) {
                        first[i] = j;
                        break;
                    }
                }
            }
            at = end;
        }
        stripes = Arrays.copyOf(s, distinct);
    }
}
