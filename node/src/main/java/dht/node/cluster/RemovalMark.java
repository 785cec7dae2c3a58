package dht.node.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The push that re-creates a removed member's copies, owed by this node: marked in
 * {@code DATA/removal-pending} (the removed URL and the membership before the removal) before the
 * version that removes it is kept ({@link MembershipState#beforeKeeping}), and cleared once the
 * push is done. So a member killed mid-push pushes again when it starts, as long as the removal is
 * still the current version; a newer version drops the mark, since its own moves place the keys
 * anew (anti-entropy brings what the push did not).
 *
 * <p>The file is replaced whole (written aside, then moved over), so it is read either whole or
 * not at all.
 */
final class RemovalMark {
    private static final Logger log = LoggerFactory.getLogger(RemovalMark.class);
    static final String FILE = "removal-pending";
    private static final String REMOVED = "removed=";

    /** A removal of {@code gone} from {@code before} whose push is owed. */
    record Pending(Membership before, String gone) {
        /** Whether {@code now} is still the version that removed it. */
        boolean current(Membership now) {
            return now.version() == before.version() + 1 && !now.all().contains(gone);
        }
    }

    private final Path file;

    RemovalMark(Path dataDir) {
        this.file = dataDir.resolve(FILE);
    }

    void mark(Membership before, String gone) {
        Path aside = file.resolveSibling(FILE + ".tmp");
        try {
            Files.writeString(aside, REMOVED + gone + "\n" + before.encode(), StandardCharsets.UTF_8);
            Files.move(aside, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            log.warn("cannot mark the push after the removal of {} pending: {}", gone, e.toString());
        }
    }

    /** The push owed, or null when none is marked (or the mark cannot be read: said in the log). */
    Pending pending() {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            String first = text.lines().findFirst().orElse("");
            if (!first.startsWith(REMOVED)) throw new IllegalArgumentException("no " + REMOVED + " line");
            return new Pending(Membership.decode(text), first.substring(REMOVED.length()).strip());
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | IllegalArgumentException e) {
            log.warn("the mark of a push owed after a removal ({}) cannot be read, and is ignored: {}", file, e.toString());
            return null;
        }
    }

    /** The push for {@code gone} is done, or no longer owed. */
    void clear(String gone) {
        Pending p = pending();
        if (p != null && !p.gone().equals(gone)) return; // a later removal's mark
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            log.warn("cannot clear the mark of the push after the removal of {}: {}", gone, e.toString());
        }
    }
}
