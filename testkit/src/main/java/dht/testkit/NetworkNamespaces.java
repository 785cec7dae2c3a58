package dht.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Network namespaces for fault tests: each node process runs in a namespace of its own, on its
 * own address, and links between namespaces can be cut and healed while the processes run.
 *
 * <p>Layout: a hub namespace holds a bridge; each node namespace has one veth {@code eth0} on it
 * with address {@code 10.77.S.(i+1)/24}; a veth from the caller's (root) namespace, address
 * {@code 10.77.S.254}, lets the test JVM talk to the nodes. Nothing else is routed: traffic stays
 * within the namespaces this class created. S is a subnet not already present in the root
 * namespace.
 *
 * <p>A cut drops packets silently, like a real partition: the sender's neighbour entry for the
 * peer is pinned to a link-layer address no one has, so frames leave and no one takes them
 * ({@code ip neigh ... nud permanent}). Connections then time out instead of being refused. It
 * needs only iproute2 ({@code ip}), not iptables or nft, and vanishes with its interface.
 *
 * <p>Needs root and iproute2. {@link #isAvailable()} says whether this machine can, and why not.
 * Everything is named {@code dhtt<pid>-...}; {@link #close()} removes it (a shutdown hook does if
 * the test forgets), and a later run removes what a killed JVM left behind (its pid is dead).
 */
public final class NetworkNamespaces implements AutoCloseable {
    /** Index of the test JVM's side (the root namespace) in {@link #cut} and {@link #heal}. */
    public static final int HOST = -1;

    private static final Logger log = LoggerFactory.getLogger(NetworkNamespaces.class);
    private static final String PREFIX = "dhtt";
    private static final Pattern OURS = Pattern.compile(PREFIX + "(\\d+)[-h].*");
    private static final String NOWHERE = "02:00:00:dd:00:00";
    private static final long PID = ProcessHandle.current().pid();
    private static final AtomicInteger RUNS = new AtomicInteger();
    private static volatile String unavailable;
    private static volatile boolean probed;

    private final String run;
    private final String hostLink;
    private final int subnet;
    private final int count;
    private final Set<Long> cuts = new HashSet<>();
    private final Thread onExit;
    private boolean closed;

    /** Creates {@code count} namespaces (at most 250) joined by a bridge, each reachable from the test JVM. */
    public static NetworkNamespaces create(int count) {
        if (count < 1 || count > 250) throw new IllegalArgumentException("1 to 250 namespaces, not " + count);
        if (!isAvailable()) throw new IllegalStateException("network namespaces unavailable: " + unavailableReason());
        removeLeftovers();
        return new NetworkNamespaces(count);
    }

    private NetworkNamespaces(int count) {
        int seq = RUNS.incrementAndGet();
        this.run = PREFIX + PID + "-" + seq;
        this.hostLink = PREFIX + PID + "h" + seq;
        this.count = count;
        this.onExit = new Thread(this::close, run + "-cleanup");
        Runtime.getRuntime().addShutdownHook(onExit);
        try {
            this.subnet = freeSubnet(seq);
            ip("netns", "add", hub());
            ipIn(hub(), "link", "add", "name", "br0", "type", "bridge");
            ipIn(hub(), "link", "set", "br0", "up");
            for (int i = 0; i < count; i++) {
                ip("netns", "add", name(i));
                ipIn(name(i), "link", "set", "lo", "up");
                ipIn(hub(), "link", "add", "name", "n" + i, "type", "veth", "peer", "name", "eth0", "netns", name(i));
                ipIn(hub(), "link", "set", "n" + i, "master", "br0");
                ipIn(hub(), "link", "set", "n" + i, "up");
                ipIn(name(i), "addr", "add", address(i) + "/24", "dev", "eth0");
                ipIn(name(i), "link", "set", "eth0", "up");
            }
            ip("link", "add", "name", hostLink, "type", "veth", "peer", "name", "host", "netns", hub());
            ipIn(hub(), "link", "set", "host", "master", "br0");
            ipIn(hub(), "link", "set", "host", "up");
            ip("addr", "add", hostAddress() + "/24", "dev", hostLink);
            ip("link", "set", hostLink, "up");
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Whether this machine can create namespaces: root, iproute2, and the kernel lets us. */
    public static boolean isAvailable() {
        return unavailableReason() == null;
    }

    /** Why namespaces cannot be used here, or null if they can. */
    public static String unavailableReason() {
        if (!probed) {
            synchronized (NetworkNamespaces.class) {
                if (!probed) {
                    unavailable = probe();
                    probed = true;
                }
            }
        }
        return unavailable;
    }

    private static String probe() {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) return "not Linux";
        Result id = exec(List.of("id", "-u"));
        if (id.code != 0 || !id.output.strip().equals("0")) return "needs root (uid " + id.output.strip() + ")";
        Result version = exec(List.of("ip", "-V"));
        if (version.code != 0) return "iproute2 ('ip') is not installed: " + version.output.strip();
        String probe = PREFIX + PID + "-probe";
        try {
            Result add = exec(List.of("ip", "netns", "add", probe));
            if (add.code != 0) return "'ip netns add' fails: " + add.output.strip();
            Result bridge = exec(List.of("ip", "-n", probe, "link", "add", "name", "br0", "type", "bridge"));
            if (bridge.code != 0) return "cannot create a bridge: " + bridge.output.strip();
            Result veth = exec(List.of("ip", "-n", probe, "link", "add", "name", "probe0", "type", "veth", "peer", "name", "probe1"));
            if (veth.code != 0) return "cannot create a veth pair: " + veth.output.strip();
            return null;
        } finally {
            exec(List.of("ip", "netns", "del", probe));
        }
    }

    /** The name of namespace {@code i}, for {@code ip netns exec}. */
    public String name(int i) {
        checkIndex(i);
        return run + "-n" + i;
    }

    /** The address of namespace {@code i}: a node there listens on it. */
    public String address(int i) {
        checkIndex(i);
        return "10.77." + subnet + "." + (i + 1);
    }

    /** The test JVM's address as the namespaces see it. */
    public String hostAddress() {
        return "10.77." + subnet + ".254";
    }

    public int size() {
        return count;
    }

    /** A process builder that runs {@code command} inside namespace {@code i} (as the same process: its pid is the command's). */
    public ProcessBuilder command(int i, List<String> command) {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", name(i)));
        full.addAll(command);
        return new ProcessBuilder(full);
    }

    public ProcessBuilder command(int i, String... command) {
        return command(i, List.of(command));
    }

    /** Cuts the link between {@code a} and {@code b} both ways ({@link #HOST} for the test JVM). */
    public synchronized void cut(int a, int b) {
        cutOneWay(a, b);
        cutOneWay(b, a);
    }

    /** Drops what {@code from} sends to {@code to}; what {@code to} sends still arrives. */
    public synchronized void cutOneWay(int from, int to) {
        checkPair(from, to);
        if (!cuts.add(pair(from, to))) return;
        neigh(from, "replace", addressOf(to), "lladdr", NOWHERE, "nud", "permanent");
    }

    /** Heals the link between {@code a} and {@code b} both ways. */
    public synchronized void heal(int a, int b) {
        healOneWay(a, b);
        healOneWay(b, a);
    }

    public synchronized void healOneWay(int from, int to) {
        checkPair(from, to);
        if (!cuts.remove(pair(from, to))) return;
        neigh(from, "del", addressOf(to));
    }

    /** Cuts {@code i} from every other namespace and from the test JVM. */
    public synchronized void isolate(int i) {
        for (int j = HOST; j < count; j++) if (j != i) cut(i, j);
    }

    /**
     * Splits the namespaces in two: cuts every link between those in {@code side} and the others.
     * The test JVM keeps its links to all of them.
     */
    public synchronized void partition(int... side) {
        Set<Integer> inside = new HashSet<>();
        for (int i : side) {
            checkIndex(i);
            inside.add(i);
        }
        for (int i : inside) for (int j = 0; j < count; j++) if (!inside.contains(j)) cut(i, j);
    }

    /** Heals every cut. */
    public synchronized void healAll() {
        for (long p : List.copyOf(cuts)) healOneWay((int) (p >> 32), (int) p);
    }

    /** Stops the processes still running in the namespaces and removes everything this instance made. */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        for (int i = 0; i < count; i++) removeNamespace(run + "-n" + i);
        removeNamespace(hub());
        exec(List.of("ip", "link", "del", hostLink));
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException exiting) {
            // Called from the hook itself.
        }
    }

    /**
     * Removes namespaces and links left by test JVMs that are gone (killed before they could clean
     * up), with the processes still running in them. Returns how many namespaces it removed.
     */
    public static synchronized int removeLeftovers() {
        int removed = 0;
        for (String ns : namespaces()) {
            if (isDeadRun(ns)) {
                removeNamespace(ns);
                removed++;
            }
        }
        Result links = exec(List.of("ip", "-o", "link", "show"));
        Matcher m = Pattern.compile("^\\d+: (" + PREFIX + "\\d+h\\d+)[@:]", Pattern.MULTILINE).matcher(links.output);
        while (m.find()) if (isDeadRun(m.group(1))) exec(List.of("ip", "link", "del", m.group(1)));
        return removed;
    }

    /** The names of all network namespaces on this machine. */
    static List<String> namespaces() {
        Result list = exec(List.of("ip", "netns", "list"));
        List<String> names = new ArrayList<>();
        for (String line : list.output.split("\n")) if (!line.isBlank()) names.add(line.strip().split("\\s+")[0]);
        return names;
    }

    private static boolean isDeadRun(String name) {
        Matcher m = OURS.matcher(name);
        if (!m.matches()) return false;
        long pid = Long.parseLong(m.group(1));
        return pid != PID && !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static void removeNamespace(String ns) {
        Result pids = exec(List.of("ip", "netns", "pids", ns));
        for (String line : pids.output.split("\n")) {
            if (line.isBlank()) continue;
            try {
                ProcessHandle.of(Long.parseLong(line.strip())).ifPresent(ProcessHandle::destroyForcibly);
            } catch (NumberFormatException notAPid) {
                // "ip netns pids" of a namespace that does not exist prints an error instead.
            }
        }
        Result del = exec(List.of("ip", "netns", "del", ns));
        if (del.code != 0 && !del.output.contains("No such file")) log.warn("could not remove namespace {}: {}", ns, del.output.strip());
    }

    private String hub() {
        return run + "-hub";
    }

    private String addressOf(int i) {
        return i == HOST ? hostAddress() : address(i);
    }

    private void neigh(int at, String... args) {
        List<String> cmd = new ArrayList<>(at == HOST ? List.of("ip") : List.of("ip", "-n", name(at)));
        cmd.add("neigh");
        Collections.addAll(cmd, args);
        Collections.addAll(cmd, "dev", at == HOST ? hostLink : "eth0");
        must(cmd);
    }

    /** A 10.77.S.0/24 that no address or route of the root namespace uses yet. */
    private static int freeSubnet(int seq) {
        String used = exec(List.of("ip", "-4", "addr", "show")).output + exec(List.of("ip", "-4", "route", "show")).output;
        Set<Integer> taken = new LinkedHashSet<>();
        Matcher m = Pattern.compile("10\\.77\\.(\\d+)\\.").matcher(used);
        while (m.find()) taken.add(Integer.parseInt(m.group(1)));
        int start = (int) ((PID * 7 + seq) % 255);
        for (int k = 0; k < 255; k++) {
            int s = (start + k) % 255;
            if (!taken.contains(s)) return s;
        }
        throw new IllegalStateException("every 10.77.x.0/24 is in use on this machine");
    }

    private static long pair(int from, int to) {
        return ((long) from << 32) | (to & 0xffffffffL);
    }

    private void checkIndex(int i) {
        if (i < 0 || i >= count) throw new IndexOutOfBoundsException("namespace " + i + " of " + count);
    }

    private void checkPair(int from, int to) {
        if (from != HOST) checkIndex(from);
        if (to != HOST) checkIndex(to);
        if (from == to) throw new IllegalArgumentException("cannot cut " + from + " from itself");
        if (closed) throw new IllegalStateException("closed");
    }

    private static void ip(String... args) {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        Collections.addAll(cmd, args);
        must(cmd);
    }

    private static void ipIn(String ns, String... args) {
        List<String> cmd = new ArrayList<>(List.of("ip", "-n", ns));
        Collections.addAll(cmd, args);
        must(cmd);
    }

    private static void must(List<String> cmd) {
        Result r = exec(cmd);
        if (r.code != 0) throw new IllegalStateException(String.join(" ", cmd) + " failed (" + r.code + "): " + r.output.strip());
    }

    private record Result(int code, String output) {}

    private static Result exec(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, "timed out: " + out);
            }
            return new Result(p.exitValue(), out);
        } catch (IOException e) {
            return new Result(-1, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted running " + cmd, e));
        }
    }
}
