package dht.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for the servers tests start, taken below the kernel's ephemeral range.
 *
 * <p>Why not {@code new ServerSocket(0)}: the kernel hands that port out of the ephemeral range,
 * the same range every outgoing connection (a node's peer client, the test's HTTP client) draws
 * its local port from, so between the probe and the server's listen another socket may take it
 * (a launcher's node at base port + 1 would find its port "already in use"). Below the range only
 * listeners compete, and each port is probed before it is handed out. Never the same port twice
 * in one JVM, so never twice in one cluster.
 */
public final class TestPorts {
    /** The lowest ephemeral port: ports are taken from the window just below it. */
    private static final int ABOVE = ephemeralLow();
    private static final int LOWEST = Math.max(1024, ABOVE - 12_000);
    /** Starts at a random place so that two test JVMs at once rarely walk the same ports. */
    private static final AtomicInteger NEXT =
            new AtomicInteger(LOWEST + ThreadLocalRandom.current().nextInt(ABOVE - LOWEST));

    private TestPorts() {}

    /** One port nothing listens on now. */
    public static int free() {
        return run(1);
    }

    /** The first of {@code n} consecutive ports nothing listens on now (the cluster launcher's --base-port). */
    public static int run(int n) {
        for (int tries = 0; tries < ABOVE - LOWEST; tries++) {
            int first = NEXT.getAndAdd(n);
            if (first + n > ABOVE) {
                NEXT.compareAndSet(first + n, LOWEST);
                continue;
            }
            if (allFree(first, n)) return first;
        }
        throw new IllegalStateException("no " + n + " free consecutive ports in " + LOWEST + ".." + (ABOVE - 1));
    }

    private static boolean allFree(int first, int n) {
        List<ServerSocket> probes = new ArrayList<>();
        try {
            for (int p = first; p < first + n; p++) probes.add(new ServerSocket(p));
            return true;
        } catch (IOException taken) {
            return false;
        } finally {
            for (ServerSocket s : probes) {
                try {
                    s.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    /**
     * The lowest ephemeral port (Linux's /proc setting; 32768, its default, where it cannot be read).
     * A range that leaves fewer than 2,000 ports below it (some containers start it at 1024) fails
     * loudly: ports inside it are what this class exists to avoid.
     */
    private static int ephemeralLow() {
        int low;
        // Read line by line: Files.readString goes by the file's size, which /proc reports as 0, and
        // returned "3" of "32768\t60999".
        try (var in = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
            low = Integer.parseInt(in.readLine().trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
        if (low < 1024 + 2000) {
            throw new IllegalStateException("the ephemeral port range starts at " + low
                    + " (/proc/sys/net/ipv4/ip_local_port_range): too low to keep test servers out of it");
        }
        return low;
    }
}
