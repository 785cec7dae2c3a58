package dht.cli;

import dht.testkit.TestPorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP relay in front of one node, at the URL the other nodes know it by ({@code --self}): it
 * forwards every connection both ways, and once {@link #arm armed} it runs the given action (the
 * test SIGKILLs the node) when the given membership commit comes through, before the node reads
 * it, and closes that connection. So the node has prepared the change and is down when the
 * change commits, which no outside timing could hit (the two phases are milliseconds apart).
 */
final class KillAtCommitRelay implements AutoCloseable {
    private static final byte[] COMMIT = "/internal/v0/membership?op=commit".getBytes(StandardCharsets.US_ASCII);

    final int port;
    private final int target;
    private final ServerSocket server;
    private final AtomicReference<Runnable> armed = new AtomicReference<>();
    /** Commits still to let through before the armed one. */
    private final AtomicInteger skip = new AtomicInteger();
    private final CountDownLatch fired = new CountDownLatch(1);
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    /** Listens now, forwarding to {@code localhost:target}. */
    KillAtCommitRelay(int target) throws IOException {
        this.port = TestPorts.free();
        this.target = target;
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(port));
        Thread.ofVirtual().name("relay-" + port).start(this::accept);
    }

    String url() {
        return "http://localhost:" + port;
    }

    /** Runs {@code action} when the {@code nth} membership commit from now arrives (1: the next), once. */
    void arm(int nth, Runnable action) {
        skip.set(nth - 1);
        armed.set(action);
    }

    /** Waits until the armed action has run. */
    boolean awaitFired(long seconds) throws InterruptedException {
        return fired.await(seconds, TimeUnit.SECONDS);
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket in;
            try {
                in = server.accept();
            } catch (IOException e) {
                return;
            }
            Thread.ofVirtual().start(() -> relay(in));
        }
    }

    private void relay(Socket in) {
        open.add(in);
        Socket out = new Socket();
        open.add(out);
        try {
            out.connect(new InetSocketAddress("localhost", target), 2_000);
            in.setTcpNoDelay(true);
            out.setTcpNoDelay(true);
        } catch (IOException e) {
            closeBoth(in, out);
            return;
        }
        Thread.ofVirtual().start(() -> pump(out, in, false));
        pump(in, out, true);
    }

    /** Copies {@code from} to {@code to}; toward the node ({@code watch}) it looks for a commit first. */
    private void pump(Socket from, Socket to, boolean watch) {
        byte[] tail = new byte[0];
        try (InputStream r = from.getInputStream()) {
            OutputStream w = to.getOutputStream();
            byte[] buf = new byte[64 << 10];
            int n;
            while ((n = r.read(buf)) > 0) {
                if (watch && armed.get() != null) {
                    byte[] seen = Arrays.copyOf(tail, tail.length + n);
                    System.arraycopy(buf, 0, seen, tail.length, n);
                    if (contains(seen, COMMIT) && skip.getAndDecrement() <= 0) {
                        Runnable action = armed.getAndSet(null);
                        if (action != null) {
                            action.run();
                            fired.countDown();
                            break;
                        }
                    }
                    // what could begin a commit's path split across two reads, but not a whole one
                    tail = Arrays.copyOfRange(seen, Math.max(0, seen.length - COMMIT.length + 1), seen.length);
                }
                w.write(buf, 0, n);
                w.flush();
            }
        } catch (IOException e) {
            // either side gone: close both
        } finally {
            closeBoth(from, to);
        }
    }

    private static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) continue outer;
            }
            return true;
        }
        return false;
    }

    private void closeBoth(Socket a, Socket b) {
        for (Socket s : new Socket[] {a, b}) {
            open.remove(s);
            try {
                s.close();
            } catch (IOException e) {
                // already closed
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : open) s.close();
    }
}
