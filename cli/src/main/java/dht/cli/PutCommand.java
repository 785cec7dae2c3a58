package dht.cli;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code bin/dht put KEY [VALUE]}: stores VALUE, or standard input when VALUE is absent. */
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

    @Override
    public Integer call() throws Exception {
        byte[] body = value != null ? value.getBytes(StandardCharsets.UTF_8) : System.in.readAllBytes();
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(client.entityUri(key, replicas))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
        System.err.println(r.statusCode() + (r.body().isBlank() ? "" : " " + r.body().strip()));
        return ClientOptions.exitCode(r.statusCode());
    }
}
