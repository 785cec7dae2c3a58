package dht.node.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How far a joining node's streams have come ({@code DATA/join-progress}), so that a node killed
 * mid-stream resumes each source at the last key it wrote instead of from the start: per source,
 * {@code at URL HEXKEY} or {@code done URL}. Rewritten whole (temporary file, rename) after each
 * batch; losing the last rewrite only repeats a batch, which is harmless (writes keep the newest
 * version).
 */
final class JoinProgress {
    static final String NAME = "join-progress";
    private final Path file;
    /** Source URL to its last key written, or to null once it is done. */
    private final Map<String, byte[]> sources = new LinkedHashMap<>();
    private final Map<String, Boolean> done = new LinkedHashMap<>();

    JoinProgress(Path dataDir) throws IOException {
        this.file = dataDir.resolve(NAME);
        if (!Files.exists(file)) return;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] f = line.split(" ");
            if (f.length == 2 && f[0].equals("done")) done.put(f[1], true);
            if (f.length == 3 && f[0].equals("at")) sources.put(f[1], HexFormat.of().parseHex(f[2]));
        }
    }

    synchronized boolean done(String source) {
        return done.containsKey(source);
    }

    /** The key to resume {@code source} from (inclusive), or null to start at the first. */
    synchronized byte[] resumeAt(String source) {
        return sources.get(source);
    }

    synchronized void at(String source, byte[] key) throws IOException {
        sources.put(source, key);
        save();
    }

    synchronized void finished(String source) throws IOException {
        sources.remove(source);
        done.put(source, true);
        save();
    }

    synchronized void clear() throws IOException {
        sources.clear();
        done.clear();
        Files.deleteIfExists(file);
    }

    private void save() throws IOException {
        StringBuilder b = new StringBuilder();
        for (String d : done.keySet()) b.append("done ").append(d).append('\n');
        for (Map.Entry<String, byte[]> e : sources.entrySet()) {
            b.append("at ").append(e.getKey()).append(' ').append(HexFormat.of().formatHex(e.getValue())).append('\n');
        }
        Path tmp = file.resolveSibling(NAME + ".tmp");
        Files.writeString(tmp, b.toString(), StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
