package dht.node;

import dht.node.cluster.Membership;
import java.io.IOException;

/**
 * Which membership a starting node uses, from its flags and what its data directory keeps
 * ({@code DATA/membership}):
 * <ul>
 *   <li>nothing kept: {@code --cluster} (or this node alone) at version 1, with
 *       {@code --replication-factor};</li>
 *   <li>version 1 kept and a {@code --cluster} of several nodes given: the flags, as a static
 *       cluster has always been configured (restarting every node with another list changes it);</li>
 *   <li>a later version kept (the cluster changed while it ran): that version, whatever
 *       {@code --cluster} says, so that a restart needs neither {@code --cluster} nor {@code --join}.</li>
 * </ul>
 * A kept membership that no longer lists this node (it left or was removed) is refused.
 */
final class StartingMembership {
    private StartingMembership() {
    }

    static Membership choose(NodeConfig config, Membership kept) throws IOException {
        Membership flags = Membership.initial(config.cluster(), config.replicationFactor());
        if (kept == null) return flags;
        if (kept.version() == 1 && config.cluster().size() > 1) return flags;
        if (!kept.all().contains(config.self())) {
            throw new IOException("its membership (version " + kept.version() + ", members " + kept.members()
                    + ") does not list " + config.self() + ": either the node left the cluster or was removed (start it "
                    + "on an empty data directory with --join to add it again), or this directory is another node's "
                    + "(started with another --port or --self: start it with that one)");
        }
        return kept;
    }
}
