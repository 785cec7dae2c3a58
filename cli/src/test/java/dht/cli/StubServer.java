package dht.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

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

    /** Reads a request's head from {@code s} (its line and headers; no body is expected) and returns its request line. */
    static String requestLine(Socket s) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
        String line = in.readLine();
        while (true) {
            String h = in.readLine();
            if (h == null || h.isEmpty()) return line;
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (server != null) server.close();
        if (serving != null) serving.join(5_000);
    }
}
