package dht.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/dht remove --url URL [--via MEMBER]}: drops URL, a member dead for good, through a
 * live member; the remaining replicas re-create the copies it held. It goes on with one other
 * member down (a majority prepared), keeping that member's new copies for it until it is back.
 * A joining node that is down is dropped too: its join is called off, and nothing moves; a
 * leaving one has its leave called off and is then removed as a member.
 * Refused (exit 1, nothing changed): a URL that is not a member, one that is up (it should leave),
 * fewer members than the replication factor left, another change in progress, more down.
 */
@Command(name = "remove", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Drop a dead member from its cluster; the others re-create the copies it held."
                + " A joining or leaving node that died is dropped too: its change is called off.")
final class RemoveCommand implements Callable<Integer> {
    @Option(names = "--url", required = true, paramLabel = "URL", description = "The dead member (or joining or leaving node) to drop.")
    String url;

    @Option(names = "--via", defaultValue = "http://localhost:8080", paramLabel = "MEMBER_URL",
            description = "A live member that makes the change (default: ${DEFAULT-VALUE}).")
    String via;

    @Option(names = "--cluster-secret-file", paramLabel = "PATH", description = "The cluster's secret, as given to bin/dht serve.")
    Path secretFile;

    @Option(names = "--tls-ca", paramLabel = "PEM",
            description = "CA certificates (PEM) an https:// node's certificate is checked against (default: the JDK's).")
    Path tlsCa;

    @Option(names = "--timeout", defaultValue = "60", paramLabel = "SECONDS",
            description = "How long to wait for the change (default: ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    @Override
    public Integer call() {
        return MembershipCall.run("remove", "remove", via, url, secretFile, tlsCa, timeoutSeconds);
    }
}
