package dht.cli;

import java.io.IOException;
import java.net.ServerSocket;

/**
 * A hand-made node for client tests: a server socket on a free port, served by one thread running
 * the test's handler; {@link #close} closes the socket and waits for that thread.
 */
final class StubServer implements AutoCloseable {
    /** What the serving thread does with the socket; a failure ends the thread (the test is over, or the client went away). */
    interface Handler {
        void serve(ServerSocket server) throws Exception;
    }

    private ServerSocket server;
    private Thread serving;

    /** Starts serving with {@code handler}; returns the URL to reach it at. */
    String start(Handler handler) throws IOException {
        ServerSocket socket = new ServerSocket(0);
        server = socket;
        serving = new Thread(() -> {
            try {
                handler.serve(socket);
            } catch (Exception ignored) {
                // the test is over
            }
        });
        serving.start();
        return "http://localhost:" + socket.getLocalPort();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (server != null) server.close();
        if (serving != null) serving.join(5_000);
    }
}
