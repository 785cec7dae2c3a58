package dht.cli;

import dht.testkit.NetworkNamespaces;
import java.util.Random;

/**
 * Faults of the network between nodes in namespaces of their own (packets dropped silently, so
 * connections time out rather than being refused): a random node cut off from the other nodes
 * while clients still reach it ({@code partition}), cut off from clients too ({@code isolate}),
 * or what it sends one peer dropped while the reverse still arrives ({@code drop}). The heal
 * restores every link.
 */
final class NetworkFaults implements Nemesis.Faults {
    private final NetworkNamespaces net;
    private final int nodes;

    NetworkFaults(NetworkNamespaces net, int nodes) {
        this.net = net;
        this.nodes = nodes;
    }

    @Override
    public Nemesis.Injected inject(Random random) {
        int i = random.nextInt(nodes);
        String name = "n" + i + " (" + net.address(i) + ")";
        switch (random.nextInt(3)) {
            case 0 -> {
                net.partition(i);
                return new Nemesis.Injected("partition " + name + " from the other nodes", net::healAll);
            }
            case 1 -> {
                net.isolate(i);
                return new Nemesis.Injected("isolate " + name + " from the nodes and the clients", net::healAll);
            }
            default -> {
                int j = (i + 1 + random.nextInt(nodes - 1)) % nodes;
                net.cutOneWay(i, j);
                return new Nemesis.Injected("drop what " + name + " sends n" + j, net::healAll);
            }
        }
    }
}
