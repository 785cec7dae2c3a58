package dht.node.rpc;

import io.netty.util.concurrent.DefaultThreadFactory;

/** Named daemon threads for the peer client's event loops, so thread dumps say who they are. */
final class PeerThreadFactory extends DefaultThreadFactory {
    PeerThreadFactory() {
        super("dht-peer", true);
    }
}
