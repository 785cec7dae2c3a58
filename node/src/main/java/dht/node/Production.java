package dht.node;

import dht.storage.Store;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;

/** The production storage engine and cluster layer, as {@link Node#start(NodeConfig)} wires them. */
final class Production {
    private Production() {
    }

    static Store openStore(NodeConfig config) throws IOException {
        throw new UnsupportedOperationException("storage engine not merged yet");
    }

    static ClusterServices startCluster(String self, List<String> nodes, Store store, Executor storageExecutor,
                                        Duration replicaTimeout) throws IOException {
        throw new UnsupportedOperationException("cluster layer not merged yet");
    }
}
