package dht.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The running {@code bin/dht cluster}'s control socket, {@code DATA/cluster.sock} (a Unix domain
 * socket, its owner's alone), through which {@code bin/dht cluster add} asks it to start a node.
 * One request a connection: a line naming it ({@code add}), answered with progress lines and a
 * last line that starts with {@code ok } or {@code error }. Requests are served one at a time.
 */
final class ClusterControl implements AutoCloseable {
    static final String NAME = "cluster.sock";

    /** What the launcher does for one request; it writes progress lines, then returns the last line. */
    interface Handler {
        String handle(String request, PrintWriter progress);
    }

    private final Path socket;
    private final ServerSocketChannel server;

    private ClusterControl(Path socket, ServerSocketChannel server) {
        this.socket = socket;
        this.server = server;
    }

    static Path socketOf(Path data) {
        return DataDirectory.absolute(data).resolve(NAME);
    }

    /** Whether a launcher answers on {@code socket} (a file left by a killed one does not). */
    static boolean answers(Path socket) {
        if (!Files.exists(socket)) return false;
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Listens on {@code socket} (replacing a file left by a killed launcher) and serves requests on a daemon thread. */
    static ClusterControl open(Path socket, Handler handler) throws IOException {
        Files.deleteIfExists(socket);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(socket));
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        ClusterControl control = new ClusterControl(socket, server);
        Thread.ofPlatform().daemon().name("dht-cluster-control").start(() -> control.serve(handler));
        return control;
    }

    private void serve(Handler handler) {
        while (server.isOpen()) {
            try (SocketChannel c = server.accept()) {
                BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(c), StandardCharsets.UTF_8));
                PrintWriter out = new PrintWriter(Channels.newOutputStream(c), true, StandardCharsets.UTF_8);
                String request = in.readLine();
                if (request == null) continue;
                String answer;
                try {
                    answer = handler.handle(request.strip(), out);
                } catch (RuntimeException e) {
                    // answered, so that this thread goes on serving: the next add would otherwise wait forever
                    answer = "error " + e;
                }
                out.println(answer);
            } catch (IOException e) {
                // the socket closed (the launcher stops), or the asker went away: its answer is lost, nothing else
            }
        }
    }

    @Override
    public void close() {
        try {
            server.close();
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            // stopping anyway
        }
    }
}
