package dht.cli;

import io.netty.buffer.ByteBuf;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code bin/dht scan START [END]}: prints the range, one entry per line, {@code key TAB value}, on a
 * cluster node the whole cluster's data, merged (with {@code --local}, that node's own data alone).
 *
 * <p>Why escaped lines rather than the API's bytes: the API sends {@code key \n value} in one chunk
 * per entry, and joined together those are ambiguous (a value may hold newlines). Each entry is read
 * as its own chunk ({@link ChunkedGet}) and printed with backslash escapes for the bytes that would
 * break a line or a column ({@code \\ \t \n \r}, other control bytes as {@code \xHH}); every other
 * byte, UTF-8 text included, is printed as it is.
 */
@Command(name = "scan", mixinStandardHelpOptions = true,
        description = {"Print the entries with START <= key < END, one per line: key, a tab, value.",
                "Backslash, tab, newline and carriage return in keys and values print as \\\\, \\t, \\n, \\r, "
                        + "other control bytes as \\xHH; every other byte as it is."})
final class ScanCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "START", description = "First key of the range (included).")
    String start;

    @Parameters(index = "1", arity = "0..1", paramLabel = "END",
            description = "End of the range, excluded (default: no end).")
    String end;

    // Not a key's replicas, as on get/put/delete: the node asks every node of the cluster and merges
    // their streams, and each entry it sends must have been covered by at least ack of them
    // (MergingScan); when fewer can still answer it ends the stream before its last chunk.
    @Option(names = "--ack",
            description = "Nodes that must have covered each entry printed: all are asked, and the scan ends, "
                + "incomplete (exit 1), once fewer can still answer (default: a majority of the cluster).")
    void ack(int value) {
        // bad usage (exit 2) like a value that is not a number, not the node's 400 (exit 1)
        ack = ReplicaCountOptions.positive(spec, "--ack", value);
    }

    Integer ack;

    @Option(names = "--cluster", description = "Scan the whole cluster (scope=cluster; a cluster node's default).")
    boolean clusterScope;

    @Option(names = "--local", description = "Scan only the asked node's own data (scope=local).")
    boolean localScope;

    @Override
    public Integer call() throws Exception {
        if (clusterScope && localScope) return usage("--cluster and --local exclude each other");
        if (localScope && ack != null) return usage("--ack does not apply to --local (one node's own data)");
        if (start.isEmpty()) return usage("START must not be empty");
        StringBuilder q = new StringBuilder(client.base()).append("/v0/entities?start=").append(ClientOptions.encode(start));
        if (end != null) q.append("&end=").append(ClientOptions.encode(end));
        if (clusterScope) q.append("&scope=cluster");
        if (localScope) q.append("&scope=local");
        if (ack != null) q.append("&ack=").append(ack);
        BufferedOutputStream out = new BufferedOutputStream(System.out, 1 << 16);
        ChunkedGet.Outcome o = ChunkedGet.get(URI.create(q.toString()), client.timeoutSeconds, chunk -> {
            printEntry(chunk, out);
            // System.out never throws: a reader that went away (dht scan ... | head) shows here
            if (System.out.checkError()) throw new IOException("standard output is closed");
        });
        out.flush();
        if (o.status() != 200 && o.status() != 0) {
            // an error answer, said with its status even when it was cut short
            System.err.println(o.complete() ? o.status() + " " + o.errorBody().strip() : "dht scan: " + o.status() + " (" + o.problem() + ")");
            return 1;
        }
        if (!o.complete()) {
            // The node ends a scan that failed midway without HTTP's last chunk: the entries
            // already printed are real, but the range is not complete, and the exit code says so.
            System.err.println("dht scan: " + o.problem() + "; the range is incomplete");
            return 1;
        }
        return 0;
    }

    /** Bad usage as every mode says it (README): the reason, then a pointer to the help; exit 2. */
    private int usage(String message) {
        throw new ParameterException(spec.commandLine(), message);
    }

    /** One chunk, {@code key \n value}, as {@code key TAB value NEWLINE}, escaped. */
    static void printEntry(ByteBuf chunk, OutputStream out) throws IOException {
        int newline = chunk.indexOf(chunk.readerIndex(), chunk.writerIndex(), (byte) '\n');
        if (newline < 0) throw new IOException("an entry without the newline between key and value");
        escape(chunk, chunk.readerIndex(), newline, out);
        out.write('\t');
        escape(chunk, newline + 1, chunk.writerIndex(), out);
        out.write('\n');
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private static void escape(ByteBuf b, int from, int to, OutputStream out) throws IOException {
        for (int i = from; i < to; i++) {
            int c = b.getByte(i) & 0xff;
            switch (c) {
                case '\\' -> { out.write('\\'); out.write('\\'); }
                case '\t' -> { out.write('\\'); out.write('t'); }
                case '\n' -> { out.write('\\'); out.write('n'); }
                case '\r' -> { out.write('\\'); out.write('r'); }
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        out.write('\\');
                        out.write('x');
                        out.write(HEX[c >> 4]);
                        out.write(HEX[c & 0xf]);
                    } else {
                        out.write(c);
                    }
                }
            }
        }
    }
}
