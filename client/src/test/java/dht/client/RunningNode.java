package dht.client;

import dht.node.Node;
import dht.node.NodeConfig;
import dht.testkit.TestPorts;
import java.io.IOException;
import java.nio.file.Path;

/** A real single node started in this JVM on a free port, for tests that speak to it over HTTP. */
final class RunningNode implements AutoCloseable {
    private final Node node;
    private final String url;

    private RunningNode(Node node, int port) {
        this.node = node;
        this.url = "http://localhost:" + port;
    }

    static RunningNode start(Path dataDir) throws IOException {
        int port = TestPorts.free();
        return new RunningNode(Node.start(NodeConfig.single(port, dataDir)), port);
    }

    String url() {
        return url;
    }

    @Override
    public void close() {
        node.close();
    }
}
