package dht.cli;

import dht.node.BadSettingException;
import dht.node.JvmSettings;
import dht.node.Node;
import dht.node.NodeConfig;
import dht.node.cluster.AntiEntropySettings;
import dht.node.cluster.HintSettings;
import dht.node.rpc.TlsFiles;
import dht.node.rpc.TlsProvider;
import dht.storage.Compression;
import dht.storage.DirectoryLockedException;
import dht.storage.LsmStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/dht serve}: runs one node in the foreground until SIGTERM or SIGINT, then stops it
 * gracefully and exits 0. A second node on the same data directory, or a {@code --self} that is
 * not in {@code --cluster}, fails at once with a clear message and a non-zero exit.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Run one node in the foreground (SIGTERM/SIGINT: graceful stop, exit 0).")
public final class ServeCommand implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);
    /** A stop on a signal ends by then, finished or not: the contract allows 10 s. */
    static final Duration STOP_DEADLINE = Duration.ofMillis(9_500);

    @Option(names = "--port", defaultValue = "8080", description = "HTTP port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--data", defaultValue = "./data", description = "Data directory (default: ${DEFAULT-VALUE}).")
    Path data;

    // Split here, not by picocli, whose split drops a trailing empty item ("a,b," with $C unset)
    @Option(names = "--cluster", paramLabel = "URL[,URL...]",
            description = "Every node's URL, comma-separated, the same on every node (default: --self alone).")
    List<String> cluster;

    @Option(names = "--self", paramLabel = "URL", description = "This node's URL (default: http://localhost:<port>).")
    String self;

    @Option(names = "--max-in-flight", defaultValue = "" + NodeConfig.DEFAULT_MAX_IN_FLIGHT,
            description = "Requests worked on at once; past it the node answers 503 (default: ${DEFAULT-VALUE}).")
    int maxInFlight;

    @Option(names = "--max-body", defaultValue = "" + NodeConfig.DEFAULT_MAX_BODY_BYTES,
            description = "Largest request body in bytes, else 413 (default: ${DEFAULT-VALUE}).")
    int maxBody;

    @Option(names = "--max-uri", defaultValue = "" + NodeConfig.DEFAULT_MAX_URI_BYTES,
            description = "Longest request line in bytes, else 414 (default: ${DEFAULT-VALUE}).")
    int maxUri;

    @Option(names = "--max-headers", defaultValue = "" + NodeConfig.DEFAULT_MAX_HEADER_BYTES,
            description = "Largest header block in bytes, else 431 (default: ${DEFAULT-VALUE}).")
    int maxHeaders;

    @Option(names = "--body-timeout", defaultValue = "30", paramLabel = "SECONDS",
            description = "A request body that gets no byte for this long is answered 408 and its connection "
                    + "closed, giving back its share of the node's body budget (default: ${DEFAULT-VALUE}).")
    long bodyTimeoutSeconds;

    @Option(names = "--replica-timeout", defaultValue = "1000", paramLabel = "MS",
            description = "Milliseconds a coordinator waits for one replica (default: ${DEFAULT-VALUE}).")
    long replicaTimeoutMs;

    @Option(names = "--sync", defaultValue = "periodic", paramLabel = "POLICY",
            description = "Write-ahead log sync: 'periodic' (survives a process kill; default) or "
                    + "'every-write' (fsync before acknowledging; survives power loss).")
    String sync;

    @Option(names = "--memtable-size", defaultValue = "" + NodeConfig.DEFAULT_MEMTABLE_BYTES, paramLabel = "BYTES",
            description = "Memtable size before a flush (default: ${DEFAULT-VALUE}).")
    long memtableBytes;

    @Option(names = "--io-threads", defaultValue = "0", paramLabel = "N",
            description = "HTTP event loops, for clients and peers alike (default: 0, meaning one per core; "
                    + "with several nodes on one machine, give each its share: bin/dht cluster does).")
    int ioThreads;

    @Option(names = "--admin-token", paramLabel = "TOKEN",
            description = "/admin endpoints answer only 'Authorization: Bearer TOKEN', from any client, loopback "
                    + "included (default: none, loopback clients only).")
    String adminToken;

    @Option(names = "--max-clock-offset", defaultValue = "500", paramLabel = "MILLIS",
            description = "Refuse a peer's timestamp more than this far ahead of this node's clock (default: ${DEFAULT-VALUE}).")
    long maxClockOffsetMs;

    @Option(names = "--compression", defaultValue = "lz4", paramLabel = "CODEC",
            description = "Codec of new tables' data blocks: none, lz4 or zstd (default: ${DEFAULT-VALUE}). "
                    + "Tables written with another keep it until compaction rewrites them.")
    String compression;

    @Option(names = "--cluster-secret-file", paramLabel = "PATH",
            description = "A file (mode 600) holding the secret every node of the cluster shares: internal "
                    + "requests must prove it (default: none, internal paths open to anyone who reaches the port).")
    Path clusterSecretFile;

    @Option(names = "--bind", paramLabel = "ADDRESS",
            description = "Listen on this address only, e.g. 127.0.0.1 or an internal interface's "
                    + "(default: every interface).")
    String bind;

    @Option(names = "--tls-cert", paramLabel = "PEM",
            description = "This node's certificate chain (PEM): with --tls-key, the node speaks HTTPS only, and every "
                    + "node URL is https://.")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "The private key of --tls-cert (PEM, PKCS#8).")
    Path tlsKey;

    @Option(names = "--tls-ca", paramLabel = "PEM",
            description = "CA certificates (PEM) that peers' certificates are checked against (default: the JDK's).")
    Path tlsCa;

    @Option(names = "--hint-window", defaultValue = "180", paramLabel = "MINUTES",
            description = "Drop a hinted write older than this instead of delivering it (default: ${DEFAULT-VALUE}).")
    long hintWindowMinutes;

    @Option(names = "--hint-bytes", defaultValue = "" + HintSettings.DEFAULT_BYTES_PER_PEER, paramLabel = "BYTES",
            description = "Most bytes of hint files kept for one peer; 0 turns hinted handoff off (default: ${DEFAULT-VALUE}).")
    long hintBytes;

    @Option(names = "--hint-rate", defaultValue = "" + HintSettings.DEFAULT_BYTES_PER_SECOND, paramLabel = "BYTES",
            description = "Bytes per second of hinted writes delivered to one peer (default: ${DEFAULT-VALUE}).")
    long hintRate;

    @Option(names = "--anti-entropy-interval", defaultValue = "60000", paramLabel = "MILLIS",
            description = "Compare keys with each peer and exchange what differs this often; 0 disables (default: ${DEFAULT-VALUE}).")
    long antiEntropyIntervalMs;

    @Option(names = "--anti-entropy-bytes-per-second", defaultValue = "16777216", paramLabel = "BYTES",
            description = "Anti-entropy's budget of scanned, received and sent bytes per second; 0: no limit (default: ${DEFAULT-VALUE}).")
    long antiEntropyBytesPerSecond;

    @Option(names = "--tombstone-grace", defaultValue = "86400", paramLabel = "SECONDS",
            description = "Keep a tombstone at least this long, and past it until every peer holds it; "
                    + "a hint older than this is dropped (default: ${DEFAULT-VALUE}, one day).")
    long tombstoneGraceSeconds;

    @Option(names = "--replication-factor", paramLabel = "N",
            description = "Copies of each key by default (the default 'from'; 'ack' defaults to a majority of it), "
                    + "1 to the number of nodes in --cluster, the same on every node (default: the number of nodes in --cluster).")
    Integer replicationFactor;

    @Option(names = "--join", paramLabel = "MEMBER_URL",
            description = "Join a running cluster through any of its members (instead of --cluster); the membership is "
                    + "then kept in the data directory, so a restart needs neither flag.")
    String join;

    @Option(names = "--rebalance-bytes-per-second", defaultValue = "" + NodeConfig.DEFAULT_REBALANCE_BYTES_PER_SECOND,
            paramLabel = "BYTES",
            description = "Budget of the data streamed or pushed when nodes join, leave or are removed, reached 20 s after each starts; 0: no limit (default: ${DEFAULT-VALUE}).")
    long rebalanceBytesPerSecond;

    @Option(names = "--tls-provider", paramLabel = "ENGINE",
            description = "The TLS engine, with --tls-cert: auto (BoringSSL through netty-tcnative when it loads on "
                    + "this machine, else the JDK's), openssl or jdk (default: auto).")
    String tlsProvider;

    @Override
    public Integer call() throws Exception {
        // before config(): checking the TLS files loads BoringSSL, which unpacks as the epoll library does
        Path nativeDir = NativeLibraryDir.use();
        NodeConfig config;
        try {
            config = config();
            if (clusterSecretFile != null) config = config.withClusterSecret(ClusterSecretFile.read(clusterSecretFile));
        } catch (ClusterSecretFile.Refused e) {
            System.err.println("dht serve: " + e.getMessage());
            NativeLibraryDir.remove(nativeDir);
            return 2;
        } catch (BadSettingException e) {
            // A -D option in DHT_JAVA_OPTS the node refuses: the message names it and what it takes.
            System.err.println("dht serve: " + e.getMessage());
            NativeLibraryDir.remove(nativeDir);
            return 2;
        } catch (IllegalArgumentException e) {
            NativeLibraryDir.remove(nativeDir);
            return Main.usageError("serve", e.getMessage());
        }
        if (config.tuning().exitWithParent()) stopWithParent();
        // Netty's leak detector samples one buffer in 128 and records a stack trace for it: 1.4% of
        // a cluster node's CPU at 8,000 PUT/s (docs/benchmarks.md). A served node runs without it;
        // nodes started in-process by the tests keep it, and -Dio.netty.leakDetection.level=simple
        // in DHT_JAVA_OPTS brings it back.
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        }
        // The hook is in place before the start, so that a signal during a long recovery (log
        // replay) also ends the process with 0: the store is safe to stop at any point of its open,
        // as after a crash. (In the moment between the node starting to serve and Node.start
        // returning, a signal also halts at once, without the graceful stop: a write acknowledged
        // in that moment is in the log all the same.) The hook ends with halt, so it carries the
        // exit code of a failed start.
        AtomicReference<Node> running = new AtomicReference<>();
        AtomicInteger exitCode = new AtomicInteger();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Node node = running.get();
            if (node == null) {
                if (exitCode.get() == 0) log.info("Stopping on signal during the start");
                NativeLibraryDir.remove(nativeDir);
                Runtime.getRuntime().halt(exitCode.get());
            }
            log.info("Stopping on signal: finishing in-flight requests");
            // The contract's bound is 10 s. What a cut-short stop leaves behind is safe: every
            // acknowledged write is in the log, replayed at the next start, and a half-written table
            // is an unnamed leftover that the next start removes.
            Thread.ofPlatform().daemon().name("dht-stop-deadline").start(() -> {
                try {
                    Thread.sleep(STOP_DEADLINE.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
                log.warn("Graceful stop still running after {} ms: exiting now; unflushed writes are in the log and are replayed at the next start",
                        STOP_DEADLINE.toMillis());
                Runtime.getRuntime().halt(0);
            });
            try {
                node.close();
            } catch (Exception e) {
                log.error("Graceful stop failed: {}", e.toString());
            }
            NativeLibraryDir.remove(nativeDir);
            stopped.countDown();
            // A graceful stop on SIGTERM/SIGINT is a success: exit 0, not 128+signal.
            Runtime.getRuntime().halt(0);
        }, "dht-shutdown"));
        FreshJoinDirectory joinDir = FreshJoinDirectory.before(config);
        try {
            running.set(Node.start(config));
        } catch (DirectoryLockedException e) {
            System.err.println("dht serve: " + e.getMessage());
            exitCode.set(1);
            return 1;
        } catch (java.net.BindException e) {
            // The port is bound first, so that a busy port fails before the data directory is
            // touched; when the directory is taken too (the same node started twice), that is
            // the news, so it is said first.
            if (LsmStore.inUse(config.dataDir())) {
                System.err.println("dht serve: " + new DirectoryLockedException(config.dataDir()).getMessage()
                        + "; port " + port + " is taken as well");
            } else {
                // Said in words: Netty's native text is "bind(..) failed with error(-98): Address already
                // in use" (errno 98, EADDRINUSE, whatever the locale), the JDK's for the NIO fallback the latter.
                String why = String.valueOf(e.getMessage());
                boolean inUse = why.contains("error(-98)") || why.contains("Address already in use");
                System.err.println("dht serve: cannot listen on port " + port + (bind == null ? "" : " of " + bind) + ": "
                        + (inUse ? "another process already listens there (--port chooses another)" : why));
            }
            exitCode.set(1);
            return 1;
        } catch (dht.node.JoinRefusedException e) {
            System.err.println("dht serve: " + e.getMessage());
            joinDir.refused();
            exitCode.set(1);
            return 1;
        } catch (IOException | UncheckedIOException e) {
            if (e.getCause() instanceof dht.node.JoinRefusedException j) {
                System.err.println("dht serve: " + j.getMessage());
                joinDir.refused();
                exitCode.set(1);
                return 1;
            }
            // Past the port, only the store reads and writes files at the start: a --data that is a
            // file, a directory it may not write, a damaged manifest. The operator has to act on
            // the reason, which one line gives; a stack trace would only hide it.
            System.err.println("dht serve: cannot open the data directory " + config.dataDir() + ": "
                    + reason(config.dataDir(), e));
            exitCode.set(1);
            return 1;
        } catch (Exception | Error e) {
            exitCode.set(1);
            throw e;
        }
        // A node that left its cluster (bin/dht leave) has nothing more to serve: the graceful stop, exit 0.
        running.get().left().thenRun(() -> Thread.ofPlatform().start(() -> {
            log.info("This node has left the cluster: stopping");
            System.exit(0);
        }));
        stopped.await();
        return 0;
    }

    /** Why the store could not open {@code dir}, in words: Java's file exceptions often carry a bare path as their message. */
    static String reason(Path dir, Exception e) {
        Throwable t = e instanceof UncheckedIOException u && u.getCause() != null ? u.getCause() : e;
        if (Files.exists(dir) && !Files.isDirectory(dir)) return "it is a file, not a directory";
        if (t instanceof AccessDeniedException a) return "permission denied: " + a.getFile();
        if (t instanceof NoSuchFileException n) return "no such file or directory: " + n.getFile();
        if (t instanceof NotDirectoryException n) return "not a directory: " + n.getFile();
        if (t instanceof FileSystemException f && f.getReason() != null) return f.getFile() + ": " + f.getReason();
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    /**
     * A node started by {@code bin/dht cluster} ({@code -Ddht.exitWithParent=true}) stops, gracefully,
     * once the launcher is gone, even when it was killed with SIGKILL and could not stop its nodes
     * itself: otherwise they would keep their ports and data directories with nobody to stop them.
     * The launcher holds the write end of this process's stdin, and the kernel closes it when the
     * launcher dies, however it dies: end of input is the signal. (Watching the parent's pid misses
     * a launcher that died before the watch began, the node then being init's child, and a zombie
     * launcher counts as alive.) Started before the store opens, so a long replay is covered too.
     */
    private static void stopWithParent() {
        Thread.ofPlatform().daemon().name("dht-parent-watch").start(() -> {
            try {
                while (System.in.read() >= 0) {
                    // nothing is ever sent: wait for the end of input
                }
            } catch (java.io.IOException e) {
                // a broken stdin means the same: the launcher is gone
            }
            log.info("The launcher has exited (end of standard input): stopping");
            System.exit(0);
        });
    }

    /** The flags and the {@code -D} settings ({@link JvmSettings#read()}), checked, as one configuration. */
    NodeConfig config() {
        if (port < 1 || port > 65535) throw new IllegalArgumentException("--port must be 1..65535, got " + port);
        TlsFiles tls = tls();
        String scheme = tls != null ? "https" : "http";
        String me = normalize(self != null ? self : scheme + "://localhost:" + port);
        List<String> nodes = new ArrayList<>();
        if (cluster == null || cluster.isEmpty()) {
            nodes.add(me);
        } else {
            for (String url : cluster.stream().flatMap(list -> java.util.Arrays.stream(list.split(",", -1))).toList()) {
                // --cluster $A,$B,$C with $B unset: dropping the gap would make this node compute
                // the placement of a smaller cluster than its peers do
                if (url.isBlank()) {
                    throw new IllegalArgumentException("--cluster has an empty item (two commas in a row, or one at either end): "
                            + String.join(",", cluster));
                }
                String n = normalize(url);
                if (!nodes.contains(n)) {
                    nodes.add(n);
                } else {
                    // a set, as the contract says, so the cluster is what every node computes alike;
                    // but a name given twice is most likely a typo for another node, worth a line
                    log.warn("--cluster names {} more than once; it counts once", n);
                }
            }
        }
        for (String n : nodes) {
            if (!n.startsWith(scheme + "://")) {
                throw new IllegalArgumentException("node URL " + n + " must be " + scheme + "://..."
                        + (tls != null ? " (the node speaks HTTPS: --tls-cert)" : " (https:// needs --tls-cert and --tls-key)"));
            }
        }
        if (!nodes.contains(me)) {
            throw new IllegalArgumentException("--self " + me + " is not one of --cluster " + String.join(",", nodes)
                    + " (every node must be listed in --cluster, itself included)");
        }
        boolean everyWrite = switch (sync) {
            case "every-write" -> true;
            case "periodic" -> false;
            default -> throw new IllegalArgumentException("--sync must be 'periodic' or 'every-write', got " + sync);
        };
        if (maxInFlight < 1) throw new IllegalArgumentException("--max-in-flight must be positive");
        if (maxBody < 0) throw new IllegalArgumentException("--max-body must be 0 or more bytes, got " + maxBody);
        // A body is gathered into one buffer of direct memory, and copied once: past a quarter of
        // it, a body at the limit fails with OutOfMemoryError instead of an answer (a tester's 64 MiB at -Xmx128m).
        long direct = io.netty.util.internal.PlatformDependent.maxDirectMemory();
        if (direct > 0 && maxBody > direct / 4) {
            throw new IllegalArgumentException("--max-body " + maxBody + " does not fit this JVM's direct memory of " + direct
                    + " bytes (at most a quarter of it, " + direct / 4 + "): raise -Xmx or -XX:MaxDirectMemorySize in DHT_JAVA_OPTS");
        }
        if (maxUri < 1) throw new IllegalArgumentException("--max-uri must be positive, got " + maxUri);
        if (maxHeaders < 1) throw new IllegalArgumentException("--max-headers must be positive, got " + maxHeaders);
        if (memtableBytes < 1024) throw new IllegalArgumentException("--memtable-size must be at least 1024 bytes, got " + memtableBytes);
        if (bodyTimeoutSeconds < 1) throw new IllegalArgumentException("--body-timeout must be positive, got " + bodyTimeoutSeconds);
        if (replicaTimeoutMs < 1) throw new IllegalArgumentException("--replica-timeout must be positive");
        if (maxClockOffsetMs < 0) throw new IllegalArgumentException("--max-clock-offset must be 0 or more, got " + maxClockOffsetMs);
        if (hintWindowMinutes < 1) throw new IllegalArgumentException("--hint-window must be positive, got " + hintWindowMinutes);
        if (hintBytes < 0) throw new IllegalArgumentException("--hint-bytes must be 0 or more, got " + hintBytes);
        if (hintRate < 1) throw new IllegalArgumentException("--hint-rate must be positive, got " + hintRate);
        if (tombstoneGraceSeconds < 1) throw new IllegalArgumentException("--tombstone-grace must be positive, got " + tombstoneGraceSeconds);
        return new NodeConfig(port, DataDirectory.absolute(data), me, nodes, maxInFlight, maxBody, maxUri, maxHeaders,
                Duration.ofMillis(replicaTimeoutMs), everyWrite, memtableBytes, adminToken, ioThreads,
                Duration.ofSeconds(bodyTimeoutSeconds), JvmSettings.readStrictly(), Duration.ofMillis(maxClockOffsetMs),
                Compression.parse(compression), null, bindAddress(), tls,
                new HintSettings(Duration.ofMinutes(hintWindowMinutes), hintBytes, hintRate),
                new AntiEntropySettings(Duration.ofMillis(antiEntropyIntervalMs), antiEntropyBytesPerSecond),
                Duration.ofSeconds(tombstoneGraceSeconds), replicationFactor(nodes.size()), joinUrl(nodes),
                rebalanceBytesPerSecond);
    }

    /** --join, normalized; refused beside any --cluster, which it replaces. */
    private String joinUrl(List<String> nodes) {
        if (join == null) return null;
        if (cluster != null) throw new IllegalArgumentException("--join and --cluster go alone: a joining node learns the members");
        if (replicationFactor != null) {
            throw new IllegalArgumentException("--replication-factor is the cluster's, fixed when it was created: a joining node takes it");
        }
        String url = normalize(join);
        if (url.equals(nodes.getFirst())) {
            throw new IllegalArgumentException("--join " + url + " is this node's own URL: join through a member of the running cluster");
        }
        String scheme = nodes.getFirst().substring(0, nodes.getFirst().indexOf("://") + 3);
        if (!url.startsWith(scheme)) {
            throw new IllegalArgumentException("--join " + url + " must be " + scheme + "..., as this node's own URL");
        }
        return url;
    }

    /** --replication-factor, checked against the cluster; 0 (not given) leaves it to the cluster's size. */
    private int replicationFactor(int nodes) {
        if (replicationFactor == null) return 0;
        if (replicationFactor < 1 || replicationFactor > nodes) {
            throw new IllegalArgumentException("--replication-factor must be 1.." + nodes
                    + " (the number of nodes in --cluster), got " + replicationFactor);
        }
        return replicationFactor;
    }

    /** The TLS files, checked to make a server and a client context; null without --tls-cert. */
    private TlsFiles tls() {
        if (tlsCert == null && tlsKey == null) {
            if (tlsCa != null) throw new IllegalArgumentException("--tls-ca needs --tls-cert and --tls-key");
            if (tlsProvider != null) throw new IllegalArgumentException("--tls-provider needs --tls-cert and --tls-key");
            return null;
        }
        if (tlsCert == null || tlsKey == null) throw new IllegalArgumentException("--tls-cert and --tls-key go together");
        TlsProvider provider = tlsProvider == null ? TlsProvider.AUTO : TlsProvider.parse(tlsProvider);
        provider.engine(); // openssl where BoringSSL does not load: refused as such, not as a files problem
        requireFile("--tls-cert", tlsCert);
        requireFile("--tls-key", tlsKey);
        if (tlsCa != null) requireFile("--tls-ca", tlsCa);
        TlsFiles files = new TlsFiles(tlsCert, tlsKey, tlsCa, provider);
        try {
            files.serverContext();
            files.clientContext();
            files.checkKeyMatchesCertificate();
        } catch (javax.net.ssl.SSLException | RuntimeException e) {
            throw new IllegalArgumentException("cannot use --tls-cert " + tlsCert + ", --tls-key " + tlsKey
                    + (tlsCa != null ? ", --tls-ca " + tlsCa : "") + ": " + e.getMessage());
        }
        return files;
    }

    /** Refuses {@code option}'s {@code file} unless it is one: the TLS engine would call it invalid. */
    private static void requireFile(String option, Path file) {
        if (!java.nio.file.Files.isRegularFile(file)) throw new IllegalArgumentException(option + " " + file + ": no such file");
    }

    /** The --bind address, checked to name an address; null without the flag. */
    private String bindAddress() {
        if (bind == null) return null;
        try {
            java.net.InetAddress.getByName(bind);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("--bind " + bind + " is not an address of this machine (unknown host)");
        }
        return bind;
    }

    /**
     * A node URL spelt one way ({@link dht.client.NodeUrl}), refused here unless it is
     * {@code http[s]://host[:port]}, before the data directory is touched: a port out of range or a
     * path would otherwise surface later as a stack trace, or as peers that never answer.
     */
    static String normalize(String url) {
        try {
            return dht.client.NodeUrl.normalise(url);
        } catch (dht.client.NodeUrl.RefusedException e) {
            throw new IllegalArgumentException(e.flaw() == dht.client.NodeUrl.Flaw.PORT_OUT_OF_RANGE
                    ? "the port of a node URL must be 1..65535, got " + url
                    : "node URLs must look like http://host:port, got " + url);
        }
    }
}
