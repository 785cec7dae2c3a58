package dht.cli;

import dht.node.text.Plural;
import dht.storage.CorruptionException;
import dht.storage.StoreCheck;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/dht verify}: checks a node's data directory against its checksums, every block of
 * every live table, and says which files are damaged (exit 1) or that all are intact (exit 0). It
 * reads only, so it may run while the node serves; a line a second shows its progress.
 */
@Command(name = "verify", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Check a data directory against its checksums: the MANIFEST and every data block of every "
                + "table it names. Reads only, so it may run beside the node that serves the directory.",
                "Exit code 0: every checksum held; 1: damage found (each damaged file is named), or the directory "
                + "or its MANIFEST could not be read; 2: bad usage."})
public final class VerifyCommand implements Callable<Integer> {
    @Option(names = "--data", defaultValue = "./data", description = "Data directory (default: ${DEFAULT-VALUE}).")
    Path data;

    @Override
    public Integer call() throws InterruptedException {
        Path dir = DataDirectory.absolute(data);
        // The store's own lines about damage speak of reads that will fail; here every finding is
        // said once, below, in this command's words.
        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("dht.storage")).setLevel(ch.qos.logback.classic.Level.OFF);
        StoreCheck check;
        try {
            check = StoreCheck.of(dir);
        } catch (NoSuchFileException e) {
            return withoutManifest(dir);
        } catch (CorruptionException e) {
            System.err.println("dht verify: " + e.getMessage() + " (the store cannot start from this directory)");
            return 1;
        } catch (IOException e) {
            return cannotRead(dir, e);
        }
        long total = check.totalBytes();
        System.err.printf(Locale.ROOT, "dht verify: %s: MANIFEST intact, %s, %s to check%n", dir,
                Plural.of(check.tableCount(), "table"), mib(total));
        AtomicLong done = new AtomicLong();
        long t0 = System.nanoTime();
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().unstarted(r));
        ticker.scheduleAtFixedRate(() -> System.err.println(progress(done.get(), total, (System.nanoTime() - t0) / 1e9)),
                1, 1, TimeUnit.SECONDS);
        StoreCheck.Report report;
        try {
            report = check.run(done::addAndGet);
        } catch (IOException e) {
            return cannotRead(dir, e);
        } finally {
            ticker.shutdownNow();
            ticker.awaitTermination(1, TimeUnit.SECONDS);
        }
        for (String problem : report.problems()) System.out.println("MISSING  " + problem);
        for (StoreCheck.TableResult t : report.tables()) {
            String name = t.file().getFileName().toString();
            for (String problem : t.problems()) System.out.println("DAMAGED  " + name + "  " + mib(t.bytes()) + ": " + problem);
            if (t.unreadable() != null) System.out.println("UNCHECKED " + name + ": " + t.unreadable());
            if (t.replaced()) {
                System.out.println("note     " + name + ": replaced by a compaction during the check (run verify again to check"
                        + " the table that replaced it)");
            }
        }
        for (Path p : report.setAside()) {
            System.out.println("note     " + p.getFileName() + ": set aside as damaged by an earlier start (its intact blocks "
                    + "were kept in a rebuilt table); delete it once you no longer need it");
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        List<String> findings = new ArrayList<>();
        if (report.damagedTables() > 0) findings.add(report.damagedTables() + " damaged");
        if (report.unreadableTables() > 0) findings.add(report.unreadableTables() + " could not be checked");
        if (!report.problems().isEmpty()) findings.add("a log the MANIFEST names is missing");
        System.out.printf(Locale.ROOT, "dht verify: %s named by the MANIFEST (%s) in %.1f s%s: %s%n",
                Plural.of(report.tables().size(), "table"), mib(done.get()), secs,
                report.replacedTables() == 0 ? "" : ", " + report.replacedTables() + " of them replaced by a compaction meanwhile",
                findings.isEmpty() ? "every checksum held" : String.join(", ", findings));
        return report.intact() ? 0 : 1;
    }

    /**
     * No MANIFEST: tables without one are a store that refuses to start; logs alone are a first
     * start that stopped before writing one (the next start replays them); else no data directory.
     */
    private int withoutManifest(Path dir) {
        if (!java.nio.file.Files.isDirectory(dir)) {
            System.err.println("dht verify: " + dir + (java.nio.file.Files.exists(dir) ? " is not a directory" : " does not exist")
                    + (data.toString().equals("./data") ? " (--data names the node's data directory; ./data is the default)" : ""));
            return 1;
        }
        try {
            if (StoreCheck.holdsTables(dir)) {
                System.err.println("dht verify: " + dir + " holds tables but no MANIFEST, which names the live ones:"
                        + " the store refuses to start from it until the MANIFEST is put back");
                return 1;
            }
            if (StoreCheck.holdsLogs(dir)) {
                System.out.println("dht verify: " + dir + " holds write-ahead logs and no table yet (a first start that"
                        + " stopped before its first MANIFEST): nothing to check; the next start replays the logs");
                return 0;
            }
        } catch (IOException e) {
            return cannotRead(dir, e);
        }
        System.err.println("dht verify: " + dir + " holds no MANIFEST: not a data directory");
        return 1;
    }

    private static int cannotRead(Path dir, IOException e) {
        System.err.println("dht verify: cannot read " + dir + ": " + e.getMessage());
        return 1;
    }

    private static String progress(long done, long total, double secs) {
        double rate = done / Math.max(secs, 1e-9);
        String eta = rate > 0 && total > done ? RepairTally.duration((total - done) / rate) : "?";
        return String.format(Locale.ROOT, "dht verify: %s of %s (%.0f%%), %s/s, ETA %s", mib(done), mib(total),
                total == 0 ? 100.0 : 100.0 * done / total, mib((long) rate), eta);
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }
}
