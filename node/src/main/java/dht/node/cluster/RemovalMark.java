package dht.node.cluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The push that re-creates a removed member's copies, owed by this node: marked in
 * {@code DATA/removal-pending} (the removed URL, the version that removed it, and the membership
 * before) before that version is kept ({@link MembershipState#beforeKeeping}), and cleared once
 * the push is done. So a member killed mid-push pushes again when it starts, as long as the
 * removal is still the current version; a newer version drops the mark, since its own moves place
 * the keys anew (anti-entropy brings what the push did not).
 *
 * <p>One mark at a time: a second removal's replaces the first's. The file is synced, then moved
 * over the last, so it is read either whole or not at all. Thread-safe: marked by whoever applies
 * a version, cleared by the push.
 */
final class RemovalMark {
    private static final Logger log = LoggerFactory.getLogger(RemovalMark.class);
    static final String FILE = "removal-pending";
    private static final String REMOVED = "removed=";
    private static final String AT = "removedAt=";

    /** A removal of {@code gone}, by version {@code at}, from {@code before}, whose push is owed. */
    record Pending(Membership before, long at, String gone) {
        /** Whether {@code now} is still the version that removed it. */
        boolean current(Membership now) {
            return now.version() == at && !now.all().contains(gone);
        }
    }

    private final Path file;

    RemovalMark(Path dataDir) {
        this.file = dataDir.resolve(FILE);
    }

    synchronized void mark(Membership before, Membership next, String gone) {
        Path aside = file.resolveSibling(FILE + ".tmp");
        byte[] text = (REMOVED + gone + "\n" + AT + next.version() + "\n" + before.encode()).getBytes(StandardCharsets.UTF_8);
        try (FileChannel ch = FileChannel.open(aside, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(text);
            while (b.hasRemaining()) ch.write(b);
            ch.force(true);
        } catch (IOException e) {
            log.warn("cannot mark the push after the removal of {} pending: {}", gone, e.toString());
            return;
        }
        try {
            Files.move(aside, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            log.warn("cannot mark the push after the removal of {} pending: {}", gone, e.toString());
        }
    }

    /** The push owed, or null when none is marked (or the mark cannot be read: said in the log). */
    synchronized Pending pending() {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            String gone = null;
            long at = -1;
            for (String line : text.split("\n")) {
                if (line.startsWith(REMOVED)) gone = line.substring(REMOVED.length()).strip();
                else if (line.startsWith(AT)) at = Long.parseLong(line.substring(AT.length()).strip());
            }
            if (gone == null || at < 0) throw new IllegalArgumentException("no " + REMOVED + " or " + AT + " line");
            return new Pending(Membership.decode(text), at, gone);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | IllegalArgumentException e) {
            log.warn("the mark of a push owed after a removal ({}) cannot be read, and is ignored: {}", file, e.toString());
            return null;
        }
    }

    /** The push for {@code gone} is done, or no longer owed; a later removal's mark stays. */
    synchronized void clear(String gone) {
        Pending p = pending();
        if (p != null && !p.gone().equals(gone)) return;
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            log.warn("cannot clear the mark of the push after the removal of {}: {}", gone, e.toString());
        }
    }
}
