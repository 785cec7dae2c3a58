package dht.cli;

import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * Faults of whole processes: a random node SIGKILLed (restarted on the same data directory at the
 * heal) or SIGSTOPped (SIGCONT at the heal); one time in four a second node gets the other fault
 * at the same time, leaving the cluster without a quorum for a while.
 */
final class ProcessFaults implements Nemesis.Faults {
    private final List<NodeProcess> nodes;
    private final String[] jvmOptions;

    /** {@code jvmOptions}: those the nodes started with, for their restarts. */
    ProcessFaults(List<NodeProcess> nodes, String... jvmOptions) {
        this.nodes = List.copyOf(nodes);
        this.jvmOptions = jvmOptions.clone();
    }

    @Override
    public Nemesis.Injected inject(Random random) throws Exception {
        int a = random.nextInt(nodes.size());
        boolean kill = random.nextBoolean();
        Nemesis.Injected first = fault(a, kill);
        if (random.nextInt(4) != 0) return first;
        int b = (a + 1 + random.nextInt(nodes.size() - 1)) % nodes.size();
        Nemesis.Injected second = fault(b, !kill);
        return new Nemesis.Injected(first.what() + ", and " + second.what(), () -> {
            second.heal().heal();
            first.heal().heal();
        });
    }

    private Nemesis.Injected fault(int i, boolean kill) throws Exception {
        NodeProcess n = nodes.get(i);
        String name = "n" + i + " (" + n.url() + ")";
        if (kill) {
            n.kill();
            return new Nemesis.Injected("kill " + name, () -> {
                n.start(jvmOptions);
                n.awaitReady(Duration.ofSeconds(60));
            });
        }
        n.freeze();
        return new Nemesis.Injected("freeze " + name, n::thaw);
    }
}
