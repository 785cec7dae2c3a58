package dht.node.cluster;

import dht.storage.Entry;
import java.util.List;

/**
 * One page of a peer's entries under some leaves: every such entry with a key in
 * {@code [start, next)}, sorted, values and tombstones alike; {@code next == null} means the page
 * runs to the end of the key space.
 *
 * @param bytes the page's size on the wire, for the exchange's counters and pacing
 */
public record TreePage(List<Entry> entries, byte[] next, long bytes) {
}
