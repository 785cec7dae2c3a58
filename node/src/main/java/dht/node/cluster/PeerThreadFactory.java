package dht.node.cluster;

import io.netty.util.concurrent.DefaultThreadFactory;

/** Named daemon threads for the peer client's event loops, so thread dumps say who they are. */
public final class PeerThreadFactory extends DefaultThreadFactory {
    public PeerThreadFactory() {
        super("dht-peer", true);
    }
}
