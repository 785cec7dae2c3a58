package dht.cli;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code bin/dht get KEY}: prints the value's bytes to stdout; exit 1 with the status on stderr otherwise. */
@Command(name = "get", mixinStandardHelpOptions = true, description = "Print the value of a key.")
final class GetCommand implements Callable<Integer> {
    @Mixin
    ClientOptions client;

    @Mixin
    ReplicaCountOptions replicas;

    @Parameters(index = "0", paramLabel = "KEY", description = "Key to read.")
    String key;

    @Override
    public Integer call() throws Exception {
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(client.entityUri(key, replicas)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() == 200) {
            System.out.write(r.body());
            System.out.flush();
        } else {
            System.err.println(r.statusCode() + " " + new String(r.body()).strip());
        }
        return ClientOptions.exitCode(r.statusCode());
    }
}
