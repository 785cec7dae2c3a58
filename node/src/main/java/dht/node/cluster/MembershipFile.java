package dht.node.cluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The membership kept in the data directory ({@code DATA/membership}), so that a restarted node
 * knows its cluster without {@code --cluster} or {@code --join}. Replaced atomically: written to a
 * temporary file, synced, renamed over the old one, the directory synced; a crash leaves either
 * the old version or the new one, never a mix.
 */
public final class MembershipFile {
    public static final String NAME = "membership";
    /**
     * Beside it while a node's first join awaits its answer (the join may be agreed without this
     * node learning it): a start with {@code --join} then takes the join if the member lists the
     * node as joining, where another directory claiming the URL is refused.
     */
    public static final String JOIN_ASKED = "join-asked";
    private final Path file;

    public MembershipFile(Path dataDir) {
        this.file = dataDir.resolve(NAME);
    }

    /** The stored membership, or null when this node has none yet. */
    public Membership read() throws IOException {
        if (!Files.exists(file)) return null;
        try {
            return Membership.decode(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + " is not a membership: " + e.getMessage(), e);
        }
    }

    public void write(Membership m) throws IOException {
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(NAME + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(m.bytes());
            while (b.hasRemaining()) ch.write(b);
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        }
    }
}
