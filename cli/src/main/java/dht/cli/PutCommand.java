package dht.cli;

import dht.client.DhtClient;
import dht.client.DhtException;
import dht.client.WriteOptions;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code bin/dht put [--ttl SECONDS] KEY [VALUE]}: stores VALUE, or standard input when VALUE is
 * absent; with {@code --ttl}, the key reads as absent that many seconds later. The answer's status
 * goes to stderr ({@code 201}), exit 0 when it is a success.
 */
@Command(name = "put", mixinStandardHelpOptions = true,
        description = "Store a value under a key (the value is read from stdin when not given).")
final class PutCommand implements Callable<Integer> {
    @Mixin
    ClientOptions client;

    @Mixin
    ReplicaCountOptions replicas;

    @Parameters(index = "0", paramLabel = "KEY", description = "Key to store the value under.")
    String key;

    @Parameters(index = "1", arity = "0..1", paramLabel = "VALUE",
            description = "Value to store, as UTF-8 (default: the bytes of standard input).")
    String value;

    /** The node's bound for {@code ttl} (docs/api.md): 20 years of 365 days, in seconds. */
    static final long MAX_TTL_SECONDS = 630_720_000L;

    @Option(names = "--ttl", paramLabel = "SECONDS", converter = DecimalDigits.ToLong.class,
            description = "Expire the value this many seconds after it is stored (1 to " + MAX_TTL_SECONDS
                    + "; default: never). A later put without --ttl makes the key permanent.")
    Long ttl;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        // bad usage like any other bad value, not a request the node can only answer 400 (exit 1)
        if (ttl != null && (ttl < 1 || ttl > MAX_TTL_SECONDS)) {
            throw new ParameterException(spec.commandLine(), "--ttl must be from 1 to " + MAX_TTL_SECONDS + " seconds");
        }
        byte[] id = client.key(key);
        byte[] body = value != null ? ClientOptions.utf8(spec, "VALUE", value) : System.in.readAllBytes();
        WriteOptions options = ttl == null ? replicas.write() : replicas.write().ttlSeconds(ttl);
        try (DhtClient c = client.client()) {
            c.put(id, body, options);
        } catch (DhtException e) {
            return client.failed(e, true);
        }
        System.err.println("201");
        return 0;
    }
}
