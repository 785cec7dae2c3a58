package dht.cli;

import dht.client.DhtClient;
import dht.client.DhtException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code bin/dht delete KEY}: the answer's status on stderr ({@code 202}), exit 0 when it is a success. */
@Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete a key.")
final class DeleteCommand implements Callable<Integer> {
    @Mixin
    ClientOptions client;

    @Mixin
    ReplicaCountOptions replicas;

    @Parameters(index = "0", paramLabel = "KEY", description = "Key to delete.")
    String key;

    @Override
    public Integer call() throws Exception {
        byte[] id = client.key(key);
        try (DhtClient c = client.client()) {
            c.delete(id, replicas.write());
        } catch (DhtException e) {
            return client.failed(e, true);
        }
        System.err.println("202");
        return 0;
    }
}
