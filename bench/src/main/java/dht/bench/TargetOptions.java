package dht.bench;

import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/** Where to send load and how: shared by bench, fill and sweep. */
public final class TargetOptions {
    /** Far beyond what helps: a node works on a few of a connection's requests at once. */
    static final int MAX_PIPELINE = 1024;

    // The default first, on the description's first line: picocli may wrap after "http:", and at
    // the end of the text it split the URL in two.
    @Option(names = "--url", defaultValue = "http://localhost:8080", split = ",",
            description = "Node URL(s) (default: ${DEFAULT-VALUE}), comma-separated; connections are spread over "
                + "them round-robin.")
    List<String> urls;

    @Option(names = {"-c", "--connections"}, defaultValue = "16",
            description = "Keep-alive connections (default: ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--pipeline", defaultValue = "1",
            description = {"Requests in flight on each connection at most (default: ${DEFAULT-VALUE}: the next is "
                + "sent after the answer; more: HTTP/1.1 pipelining, the next sent without waiting for the answers "
                + "before it; in a load run, as its schedule says)."})
    int pipeline = 1; // also when built by hand, without picocli: bench report, tests

    @Option(names = {"-t", "--threads"},
            description = "Event-loop threads of the generator (default: min(connections, cores)).")
    Integer threads;

    @Option(names = "--timeout", defaultValue = "10s", converter = Durations.Converter.class,
            description = "How long to wait for answers in flight at the end (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--keys", defaultValue = "1000000",
            description = "Key space size: keys k0000000000 .. k<keys-1> (default: ${DEFAULT-VALUE}).")
    long keys;

    @Option(names = "--value-size", defaultValue = "100", description = "PUT value size in bytes (default: ${DEFAULT-VALUE}).")
    int valueSize;

    @Option(names = "--ack", description = "Replicas that must answer (the API's ack).")
    Integer ack;

    @Option(names = "--from", description = "Replicas to use (the API's from).")
    Integer from;

    @Option(names = "--seed", defaultValue = "42", description = "Random seed, for repeatable key sequences (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--tls-provider", defaultValue = "auto",
            description = "The TLS engine of https:// connections: auto (BoringSSL through netty-tcnative when it "
                + "loads, else the JDK's), openssl or jdk (default: ${DEFAULT-VALUE}).")
    String tlsProvider = "auto";

    List<Target> targets() {
        return Target.parseList(String.join(",", urls));
    }

    int threads() {
        int t = threads != null ? threads : Math.min(connections, Runtime.getRuntime().availableProcessors());
        return Math.max(1, Math.min(t, connections));
    }

    void validate() {
        if (keys <= 0 || keys > Keys.MAX_INDEX) {
            throw new BenchException("--keys must be between 1 and " + Keys.MAX_INDEX);
        }
        if (valueSize < 0) {
            throw new BenchException("--value-size must not be negative");
        }
        if (ack != null && ack < 1 || from != null && from < 1) {
            throw new BenchException("--ack and --from must be positive");
        }
        if (connections < 1) {
            throw new BenchException("--connections must be at least 1");
        }
        if (pipeline < 1 || pipeline > MAX_PIPELINE) {
            throw new BenchException("--pipeline must be between 1 and " + MAX_PIPELINE);
        }
        ClientTls.use(tlsProvider);
    }
}
