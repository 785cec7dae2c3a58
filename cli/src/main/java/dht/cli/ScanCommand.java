package dht.cli;

import dht.client.DhtClient;
import dht.client.DhtException;
import dht.client.DhtTimeoutException;
import dht.client.Entry;
import dht.client.IncompleteScanException;
import dht.client.ScanIterator;
import dht.client.ScanOptions;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
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
 * whole (the client library's {@link ScanIterator}, which keeps the chunks apart) and printed with backslash escapes for the bytes that would
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
    @Option(names = "--ack", converter = DecimalDigits.ToInt.class,
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
        ScanOptions options = ScanOptions.defaults();
        if (clusterScope) options = options.cluster();
        if (localScope) options = options.local();
        if (ack != null) options = options.ack(ack);
        byte[] first = ClientOptions.utf8(spec, "START", start);
        byte[] last = end == null ? null : ClientOptions.utf8(spec, "END", end);
        try (DhtClient c = client.client()) {
            ScanIterator entries;
            try {
                entries = c.scanIterator(first, last, options);
            } catch (DhtException e) {
                return client.failed(e, false); // no answer, or an error answer: its status and reason
            }
            return print(entries);
        }
    }

    /** Prints every entry; exit 0 when the node's answer came whole, else 1 with the reason on stderr. */
    private int print(ScanIterator entries) {
        BufferedOutputStream out = new BufferedOutputStream(System.out, 1 << 16);
        String problem = null;
        try (entries) {
            while (entries.hasNext()) {
                Entry e = entries.next();
                printEntry(e.key(), e.value(), out);
                // System.out never throws: a reader that went away (dht scan ... | head) shows here
                if (System.out.checkError()) throw new IOException("standard output is closed");
            }
        } catch (DhtTimeoutException e) {
            problem = "no data from node " + client.base() + " for " + client.timeoutSeconds + " s";
        } catch (IncompleteScanException e) {
            problem = e.getCause() instanceof EOFException
                    ? "the answer was cut short (node " + client.base() + " closed the connection)"
                    : "the answer could not be read (" + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()) + ")";
        } catch (DhtException | IOException e) {
            problem = "the answer could not be read (" + e.getMessage() + ")";
        }
        try {
            out.flush();
        } catch (IOException e) {
            if (problem == null) problem = "the answer could not be written (" + e.getMessage() + ")";
        }
        if (problem == null) return 0;
        // The node ends a scan that failed midway without HTTP's last chunk: the entries already
        // printed are real, but the range is not complete, and the exit code says so.
        System.err.println("dht scan: " + problem + "; the range is incomplete");
        return 1;
    }

    /** Bad usage as every mode says it (README): the reason, then a pointer to the help; exit 2. */
    private int usage(String message) {
        throw new ParameterException(spec.commandLine(), message);
    }

    /** One entry as {@code key TAB value NEWLINE}, escaped. */
    static void printEntry(byte[] key, byte[] value, OutputStream out) throws IOException {
        escape(key, out);
        out.write('\t');
        escape(value, out);
        out.write('\n');
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private static void escape(byte[] b, OutputStream out) throws IOException {
        for (byte x : b) {
            int c = x & 0xff;
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
