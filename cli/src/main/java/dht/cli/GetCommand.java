package dht.cli;

import dht.client.DhtClient;
import dht.client.DhtException;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code bin/dht get KEY}: prints the value's bytes to stdout; exit 1 with the status on stderr otherwise. */
@Command(name = "get", mixinStandardHelpOptions = true, description = "Print the value of a key.")
final class GetCommand implements Callable<Integer> {
    /** What the node says of an absent or deleted key, with its 404. */
    static final String NOT_FOUND = "404 not found";

    @Mixin
    ClientOptions client;

    @Mixin
    ReplicaCountOptions replicas;

    @Parameters(index = "0", paramLabel = "KEY", description = "Key to read.")
    String key;

    @Override
    public Integer call() throws Exception {
        byte[] id = client.key(key);
        Optional<byte[]> value;
        try (DhtClient c = client.client()) {
            value = c.get(id, replicas.read());
        } catch (DhtException e) {
            return client.failed(e, false);
        }
        if (value.isEmpty()) {
            System.err.println(NOT_FOUND);
            return 1;
        }
        System.out.write(value.get());
        System.out.flush();
        return 0;
    }
}
