package dht.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * {@code DATA/added-nodes}: the ports of the nodes {@code bin/dht cluster add} added to the local
 * cluster on {@code DATA}, one a line, so that a restart of {@code bin/dht cluster} brings them
 * back (each on its {@code DATA/node-PORT}, whose kept membership makes it a member again without
 * {@code --join}). A port is recorded before its node starts, so that a launcher killed during a
 * join still finds the node; it is dropped once the node left, or when its join was refused.
 */
final class AddedNodes {
    static final String NAME = "added-nodes";
    private static final String HEADER = "# ports of the nodes 'bin/dht cluster add' added; each one's data is in node-PORT beside this file";

    private final Path file;

    AddedNodes(Path data) {
        this.file = data.resolve(NAME);
    }

    Path file() {
        return file;
    }

    /** The recorded ports, ascending; none when the file does not exist. */
    synchronized List<Integer> ports() throws IOException {
        if (!Files.exists(file)) return List.of();
        TreeSet<Integer> ports = new TreeSet<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) continue;
            int port;
            try {
                port = Integer.parseInt(l);
            } catch (NumberFormatException e) {
                throw new IOException(file + ": '" + l + "' is not a port");
            }
            if (port < 1 || port > 65535) throw new IOException(file + ": " + port + " is not a port");
            ports.add(port);
        }
        return List.copyOf(ports);
    }

    synchronized void add(int port) throws IOException {
        TreeSet<Integer> ports = new TreeSet<>(ports());
        ports.add(port);
        write(ports);
    }

    synchronized void remove(int port) throws IOException {
        TreeSet<Integer> ports = new TreeSet<>(ports());
        if (ports.remove(port)) write(ports);
    }

    /** Written beside and moved over the file, so that a crash leaves the old list or the new one. */
    private void write(TreeSet<Integer> ports) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(HEADER);
        for (int p : ports) lines.add(String.valueOf(p));
        Path tmp = file.resolveSibling(NAME + ".tmp");
        Files.write(tmp, lines, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
