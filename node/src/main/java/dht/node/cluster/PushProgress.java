package dht.node.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HexFormat;
import java.util.List;

/**
 * How far this node's push of a leave or a removal has come ({@code DATA/push-progress}), so that
 * a node stopped mid-push resumes it where it was instead of at the first key: one line, {@code at
 * PUSH HEXKEY}, where every version of a key before HEXKEY was sent to (or kept for) each node that
 * gains it. PUSH names the push, its kind and membership version: a push of another name starts at
 * the first key. Rewritten whole (temporary file, rename); losing the last rewrite only repeats
 * some batches, which is harmless (writes keep the newest version). A file that does not read as
 * that line is ignored: the push starts over.
 */
final class PushProgress {
    static final String NAME = "push-progress";
    private static final byte[] FIRST = new byte[0];
    private final Path file;

    PushProgress(Path dataDir) {
        this.file = dataDir.resolve(NAME);
    }

    /** The key to resume {@code push} at (inclusive): the empty key, the first, unless its progress is kept. */
    synchronized byte[] resumeAt(String push) throws IOException {
        if (!Files.exists(file)) return FIRST;
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.size() != 1) return FIRST;
        String[] f = lines.getFirst().split(" ");
        if (f.length != 3 || !f[0].equals("at") || !f[1].equals(push)) return FIRST;
        try {
            return HexFormat.of().parseHex(f[2]);
        } catch (IllegalArgumentException e) {
            return FIRST;
        }
    }

    /** Every version of a key before {@code key} has gone where {@code push} sends it. */
    synchronized void at(String push, byte[] key) throws IOException {
        if (push.contains(" ") || push.contains("\n")) throw new IllegalArgumentException("a push name with a space: " + push);
        Path tmp = file.resolveSibling(NAME + ".tmp");
        Files.writeString(tmp, "at " + push + " " + HexFormat.of().formatHex(key) + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The push is done: the next starts at the first key. */
    synchronized void clear() throws IOException {
        Files.deleteIfExists(file);
    }

    /** The key right after {@code key} in unsigned byte order: {@code key} and a zero byte. */
    static byte[] after(byte[] key) {
        byte[] next = new byte[key.length + 1];
        System.arraycopy(key, 0, next, 0, key.length);
        return next;
    }
}
