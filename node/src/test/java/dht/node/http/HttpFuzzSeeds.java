package dht.node.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the seed corpus of the HTTP fuzz tests, where Jazzer looks for them,
 * {@code <resources>/dht/node/http/<TestClass>Inputs/<testMethod>/}: requests of every framing the
 * node takes, and queries of every parameter the routes read, well-formed and not. Run from the
 * repository root (docs/fuzzing.md):
 * {@code java -cp <node's test classpath> dht.node.http.HttpFuzzSeeds node/src/test/resources}
 */
public final class HttpFuzzSeeds {
    private HttpFuzzSeeds() {}

    public static void main(String[] args) throws IOException {
        Path http = Path.of(args.length > 0 ? args[0] : "src/test/resources").resolve("dht/node/http");
        Path requests = http.resolve("HttpRequestFuzzTestInputs/answersEveryInputOr4xx");
        // the first byte also says where the input is cut into two reads
        write(requests, "get", "GET /v0/entity?id=k HTTP/1.1\r\nHost: n\r\n\r\n");
        write(requests, "put", "PUT /v0/entity?id=k HTTP/1.1\r\nHost: n\r\nContent-Length: 5\r\n\r\nvalue");
        write(requests, "chunked", "PUT /v0/entity?id=k HTTP/1.1\r\nHost: n\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3\r\nval\r\n2;x=y\r\nue\r\n0\r\nTrailer: t\r\n\r\n");
        write(requests, "pipelined", "GET /a HTTP/1.1\r\nHost: n\r\n\r\nDELETE /v0/entity?id=k HTTP/1.1\r\nHost: n\r\n\r\n"
                + "HEAD /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        write(requests, "too-large", "PUT /v0/entity?id=k HTTP/1.1\r\nHost: n\r\nContent-Length: 1001\r\n\r\n" + "x".repeat(1001)
                + "GET /after HTTP/1.1\r\nHost: n\r\n\r\n");
        write(requests, "expect-continue", "PUT /v0/entity?id=k HTTP/1.1\r\nHost: n\r\nExpect: 100-continue\r\n"
                + "Content-Length: 2\r\n\r\nab");
        write(requests, "http10-close", "POST /x HTTP/1.0\r\nContent-Length: 1\r\nConnection: close\r\n\r\nz");

        Path queries = http.resolve("QueryFuzzTestInputs/answersAsTheContractSays");
        // first byte: 0 GET, 1 PUT, 2 DELETE /v0/entity; 3 GET /v0/entities
        write(queries, "get", "\0id=key&ack=2&from=3");
        write(queries, "put-ttl", "\1id=%00%FF+x&ttl=60&ack=1");
        write(queries, "delete", "\2id=k&from=2");
        write(queries, "repair", "\0id=k&repair=all&from=3");
        write(queries, "scan", "\3start=a&end=z&scope=local");
        write(queries, "scan-cluster", "\3start=%61&ack=3&from=3#frag");
        write(queries, "scan-limit", "\3start=a&limit=100&scope=cluster");
        write(queries, "malformed", "\0id=k%G1&ack=0&id=again");
    }

    private static void write(Path dir, String name, String content) throws IOException {
        Files.createDirectories(dir);
        Files.write(dir.resolve(name), content.getBytes(StandardCharsets.ISO_8859_1));
    }
}
