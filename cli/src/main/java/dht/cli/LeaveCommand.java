package dht.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/dht leave --url URL}: the node at URL leaves its cluster. It first pushes its data to
 * the keys' new owners, then leaves the membership, and its process exits 0; this command waits
 * for all of it. With one other member down it goes on: a live member keeps that member's new
 * keys for it until it is back. Refused (exit 1, nothing changed): a URL that is not a member, a
 * leave that would leave fewer members than the replication factor, another change in progress,
 * two members down, a member that missed the last change and has not caught up.
 */
@Command(name = "leave", mixinStandardHelpOptions = true, sortOptions = false,
        description = "A node leaves its cluster: its data moves to the new owners, then its process exits.")
final class LeaveCommand implements Callable<Integer> {
    @Option(names = "--url", required = true, paramLabel = "URL", description = "The node that leaves.")
    String url;

    @Option(names = "--cluster-secret-file", paramLabel = "PATH", description = "The cluster's secret, as given to bin/dht serve.")
    Path secretFile;

    @Option(names = "--tls-ca", paramLabel = "PEM",
            description = "CA certificates (PEM) an https:// node's certificate is checked against (default: the JDK's).")
    Path tlsCa;

    @Option(names = "--timeout", defaultValue = "3600", paramLabel = "SECONDS",
            description = "How long to wait for the data to move (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Override
    public Integer call() {
        return MembershipCall.run("leave", "leave", url, url, secretFile, tlsCa, timeoutSeconds);
    }
}
