package dht.node.cluster;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Where and how a node keeps its hints on disk.
 *
 * @param dir            the hints' directory, {@code DATA/hints} (docs/storage-format.md, "Hints")
 * @param syncEveryWrite fsync each group of hints as written, as {@code --sync every-write} does
 *                       the log; else every second
 * @param tombstoneGrace how long the store keeps a tombstone: a hint older than this is dropped,
 *                       since delivering it could bring back a value whose delete was forgotten
 * @param settings       the bounds the operator set
 */
public record HintStorage(Path dir, boolean syncEveryWrite, Duration tombstoneGrace, HintSettings settings) {}
