package dht.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/dht cluster add}: asks the {@code bin/dht cluster} running on {@code --data} (through
 * its control socket, {@link ClusterControl}) to start one more node, which joins the cluster; the
 * launcher runs it and stops it with the others. Waits until the node is a member on every running
 * node and no node reports rebalancing (at most 2 minutes for that), the join's progress on
 * stderr; prints the node's URL. Exit 1 when no launcher runs there or
 * the node was not added (the reason on stderr).
 */
@Command(name = "add", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Add a node to the 'dht cluster' running on --data: it starts on the next free port, joins "
                + "through a running node, and is stopped with the others; prints its URL once every node lists it as a member and the old owners' cleanup is done.",
                "A restart of 'dht cluster' on the same --data brings it back."})
final class ClusterAddCommand implements Callable<Integer> {
    @Option(names = "--data", defaultValue = "./cluster-data",
            description = "The --data of the running 'dht cluster' (default: ${DEFAULT-VALUE}).")
    Path data;

    @Override
    public Integer call() {
        Path socket = ClusterControl.socketOf(data);
        if (!ClusterControl.answers(socket)) {
            System.err.println("dht cluster add: no 'dht cluster' runs on " + DataDirectory.absolute(data)
                    + " (none answers on " + socket + "; it listens there once its nodes are ready)");
            return 1;
        }
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            PrintWriter out = new PrintWriter(Channels.newOutputStream(c), true, StandardCharsets.UTF_8);
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(c), StandardCharsets.UTF_8));
            out.println("add");
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("ok ")) {
                    System.out.println(line.substring(3));
                    return 0;
                }
                if (line.startsWith("error ")) {
                    System.err.println("dht cluster add: " + line.substring(6));
                    return 1;
                }
                System.err.println("dht cluster add: " + line);
            }
            System.err.println("dht cluster add: the cluster launcher stopped before it answered");
            return 1;
        } catch (IOException e) {
            System.err.println("dht cluster add: cannot reach the cluster launcher on " + socket + ": " + e.getMessage());
            return 1;
        }
    }
}
