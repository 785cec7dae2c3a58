package dht.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dht.testkit.TestPorts;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --bind}: the node listens on the one address it is given, not on every interface. */
class BindAddressTest {
    @TempDir
    Path dir;

    @Test
    void aNodeBoundToLoopbackIsNotReachedThroughAnotherAddress() throws Exception {
        int port = TestPorts.free();
        try (Node node = Node.start(NodeConfig.single(port, dir).withBindAddress("127.0.0.1"))) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", node.port()), 2000);
            }
            Optional<InetAddress> other = otherAddress();
            if (other.isPresent()) {
                assertThatThrownBy(() -> {
                    try (Socket s = new Socket()) {
                        s.connect(new InetSocketAddress(other.get(), node.port()), 2000);
                    }
                }).isInstanceOf(java.io.IOException.class);
            }
        }
    }

    /** An IPv4 address of this machine that is not loopback, if it has one. */
    private static Optional<InetAddress> otherAddress() throws Exception {
        for (NetworkInterface i : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!i.isUp() || i.isLoopback()) continue;
            for (InetAddress a : Collections.list(i.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress()) return Optional.of(a);
            }
        }
        return Optional.empty();
    }
}
