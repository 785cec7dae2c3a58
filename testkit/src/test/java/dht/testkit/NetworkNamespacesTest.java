package dht.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs only as root with iproute2; skipped elsewhere, with the reason. */
class NetworkNamespacesTest {
    private static final int PORT = 8080;

    @BeforeAll
    static void needsNamespaces() {
        assumeTrue(NetworkNamespaces.isAvailable(), () -> "network namespaces unavailable: " + NetworkNamespaces.unavailableReason());
    }

    @Test
    void cutsAndHealsLinksBetweenNamespacesAndTheHost(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("index.html"), "hello");
        List<String> names;
        Process server;
        try (var net = NetworkNamespaces.create(3)) {
            names = List.of(net.name(0), net.name(1), net.name(2));
            assertTrue(NetworkNamespaces.namespaces().containsAll(names));
            // The JDK's file server as the node: it runs in namespace 1, on that namespace's address.
            String jwebserver = Path.of(ProcessHandle.current().info().command().orElseThrow()).resolveSibling("jwebserver").toString();
            server = net.command(1, jwebserver, "-b", net.address(1), "-p", String.valueOf(PORT), "-d", dir.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
            String from1 = net.address(1);
            assertTrue(eventually(() -> hostReaches(from1)), "the server never came up");

            assertTrue(reachesFrom(net, 0, net.address(1)), "namespace 0 reaches namespace 1");
            net.cut(0, 1);
            assertFalse(reachesFrom(net, 0, net.address(1)), "cut: namespace 0 must not reach namespace 1");
            assertTrue(hostReaches(from1), "the host's link is not cut");
            net.heal(0, 1);
            assertTrue(eventually(() -> reachesFrom(net, 0, from1)), "healed: namespace 0 reaches namespace 1 again");

            net.cut(NetworkNamespaces.HOST, 1);
            assertFalse(hostReaches(from1), "cut: the host must not reach namespace 1");
            net.healAll();
            assertTrue(eventually(() -> hostReaches(from1)), "healed: the host reaches namespace 1 again");

            net.isolate(1);
            assertFalse(hostReaches(from1));
            assertFalse(reachesFrom(net, 0, from1));
            net.healAll();
            assertTrue(eventually(() -> reachesFrom(net, 0, from1)));

            net.partition(0);
            assertFalse(reachesFrom(net, 0, from1), "0 is on the other side");
            assertTrue(reachesFrom(net, 2, from1), "2 is on 1's side");
            assertTrue(hostReaches(from1), "the host keeps its links");
            net.healAll();
            assertTrue(eventually(() -> reachesFrom(net, 0, from1)));
        }
        assertTrue(server.waitFor(10, TimeUnit.SECONDS), "closing stops the processes left in the namespaces");
        List<String> left = NetworkNamespaces.namespaces();
        for (String name : names) assertFalse(left.contains(name), name + " left behind: " + left);
        assertTrue(left.stream().noneMatch(n -> n.startsWith(names.getFirst().replace("-n0", ""))), "left behind: " + left);
    }

    @Test
    void removesWhatAKilledRunLeftBehind() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        String leftover = "dhtt" + gone.pid() + "-1-n0";
        assertEquals(0, new ProcessBuilder("ip", "netns", "add", leftover).start().waitFor());
        assertTrue(NetworkNamespaces.namespaces().contains(leftover));
        assertTrue(NetworkNamespaces.removeLeftovers() >= 1);
        assertFalse(NetworkNamespaces.namespaces().contains(leftover));
    }

    @Test
    void refusesIndexesOutsideTheSet() {
        try (var net = NetworkNamespaces.create(1)) {
            assertThrows(IndexOutOfBoundsException.class, () -> net.address(1));
            assertThrows(IllegalArgumentException.class, () -> net.cut(0, 0));
            assertTrue(net.address(0).startsWith("10.77."));
            assertTrue(net.hostAddress().endsWith(".254"));
        }
    }

    /** Whether the test JVM, in the root namespace, can open a connection to the server within two seconds. */
    private static boolean hostReaches(String address) {
        try (var socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, PORT), 2_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether an HTTP GET from inside namespace {@code i} gets an answer within two seconds (bash's /dev/tcp: no curl needed). */
    private static boolean reachesFrom(NetworkNamespaces net, int i, String address) throws Exception {
        String script = "exec 3<>/dev/tcp/" + address + "/" + PORT + " && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && head -c 12 <&3";
        Process p = net.command(i, "timeout", "2", "bash", "-c", script).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        return p.waitFor() == 0 && out.startsWith("HTTP/1.1 200");
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static boolean eventually(Check check) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (check.holds()) return true;
            Thread.sleep(200);
        }
        return false;
    }
}
