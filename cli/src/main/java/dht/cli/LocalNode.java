package dht.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;

/**
 * One node process of {@code bin/dht cluster}: its URL, port and data directory, the command that
 * brings it back by hand, and its output, printed with its port as prefix, the last lines kept so
 * that a node that fails to join can be explained to {@code bin/dht cluster add}.
 */
final class LocalNode {
    private static final int TAIL_LINES = 5;

    final String url;
    final int port;
    final Path dir;
    /** The {@code serve} arguments that restart it on its data (for an added node, without {@code --join}). */
    final List<String> restartArgs;
    /** Started by {@code bin/dht cluster add}, or brought back as such: recorded in {@link AddedNodes}. */
    final boolean added;
    final Process process;
    private final Thread output;
    private final ArrayDeque<String> tail = new ArrayDeque<>(); // guarded by itself

    LocalNode(String url, int port, Path dir, List<String> restartArgs, boolean added, Process process) {
        this.url = url;
        this.port = port;
        this.dir = dir;
        this.restartArgs = List.copyOf(restartArgs);
        this.added = added;
        this.process = process;
        this.output = Thread.ofPlatform().daemon().name("out-" + port).start(this::print);
    }

    /** How the launcher's lines name it. */
    String name() {
        return url + " (pid " + process.pid() + ")";
    }

    /** The last lines it printed, oldest first. */
    List<String> tail() {
        synchronized (tail) {
            return List.copyOf(tail);
        }
    }

    /** Waits (up to {@code millis}) for the rest of its output, up to its end. */
    void awaitOutput(long millis) throws InterruptedException {
        output.join(millis);
    }

    private void print() {
        String prefix = "[" + port + "] ";
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                System.out.println(prefix + line);
                synchronized (tail) {
                    if (tail.size() == TAIL_LINES) tail.removeFirst();
                    tail.addLast(line);
                }
            }
        } catch (IOException e) {
            // the node's output closed: it exited
        }
    }
}
