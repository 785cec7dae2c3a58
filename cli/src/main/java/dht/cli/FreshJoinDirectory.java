package dht.cli;

import dht.node.NodeConfig;
import dht.node.cluster.MembershipFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The data directory of a node's first join: when the start made it and the join is refused, it is
 * removed again, so that a refused join leaves nothing behind. Unless the join may have been let
 * in: a membership kept there, or the mark that it asked ({@link MembershipFile#JOIN_ASKED}), lets
 * a restart go on with it, so such a directory stays.
 */
final class FreshJoinDirectory {
    private final Path dir;
    private final boolean fresh;

    private FreshJoinDirectory(Path dir, boolean fresh) {
        this.dir = dir;
        this.fresh = fresh;
    }

    /** Noted before the node starts: whether {@code config} joins into a directory that does not exist yet. */
    static FreshJoinDirectory before(NodeConfig config) {
        return new FreshJoinDirectory(config.dataDir(), config.join() != null && !Files.exists(config.dataDir()));
    }

    /** After the join was refused (the node closed): removes the directory if this start made it and it keeps nothing. */
    void refused() {
        if (!fresh || Files.exists(dir.resolve(MembershipFile.NAME)) || Files.exists(dir.resolve(MembershipFile.JOIN_ASKED))) {
            return;
        }
        try {
            NodeAddition.deleteTree(dir);
        } catch (IOException e) {
            System.err.println("dht serve: could not remove " + dir + ", made for the refused join: " + e.getMessage());
        }
    }
}
