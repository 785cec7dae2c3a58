package dht.node;

import dht.node.cluster.MembershipFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A data directory that asked to join a cluster ({@link MembershipFile#JOIN_ASKED}: the version it
 * joined from, then the member it asked) but keeps no membership: the node stopped before its join
 * was agreed and kept. Started again without flags, it goes on with that join through the same
 * member, as if started with the same {@code --join}.
 *
 * <p>Why: started as before, it saw no membership and no {@code --join}, and became a cluster of
 * its own; a black-box tester's node then answered 201 to writes its cluster never saw, while the
 * members, which had agreed the join, kept it joining for good (every later change refused).
 */
final class UnfinishedJoin {
    private static final Logger log = LoggerFactory.getLogger(UnfinishedJoin.class);

    private UnfinishedJoin() {
    }

    /** What the mark says: the version the join started from, then the member asked. */
    static String mark(long version, String member) {
        return version + "\n" + member + "\n";
    }

    /**
     * {@code config}, with the {@code --join} of an unfinished join in its data directory when it
     * has none of its own and keeps no membership.
     *
     * @throws JoinRefusedException when the mark names no member (written by an older version)
     */
    static NodeConfig resume(NodeConfig config) throws IOException {
        Path dir = config.dataDir();
        Path asked = dir.resolve(MembershipFile.JOIN_ASKED);
        if (config.join() != null || Files.exists(dir.resolve(MembershipFile.NAME)) || !Files.exists(asked)) return config;
        List<String> lines = Files.readAllLines(asked, StandardCharsets.UTF_8);
        String version = lines.isEmpty() ? "?" : lines.get(0).strip();
        String member = lines.size() < 2 ? "" : lines.get(1).strip();
        if (member.isEmpty()) {
            throw new JoinRefusedException("the data directory " + dir + " asked to join a cluster (from membership version "
                    + version + ") and that join did not finish: start this node again with the same --join MEMBER_URL");
        }
        log.info("the data directory {} asked to join through {} (from membership version {}) and that join did not "
                + "finish: going on with it", dir, member, version);
        return config.withJoin(member);
    }
}
