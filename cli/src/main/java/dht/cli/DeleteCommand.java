package dht.cli;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code bin/dht delete KEY}. */
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
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(client.entityUri(key, replicas)).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
        System.err.println(r.statusCode() + (r.body().isBlank() ? "" : " " + r.body().strip()));
        return ClientOptions.exitCode(r.statusCode());
    }
}
