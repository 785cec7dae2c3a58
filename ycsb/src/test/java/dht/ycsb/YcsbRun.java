package dht.ycsb;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.htrace.core.HTraceConfiguration;
import org.apache.htrace.core.Tracer;
import site.ycsb.ClientThread;
import site.ycsb.DBFactory;
import site.ycsb.Workload;
import site.ycsb.measurements.Measurements;
import site.ycsb.measurements.exporter.TextMeasurementsExporter;
import site.ycsb.workloads.CoreWorkload;

/**
 * A YCSB load and run, as YCSB's Client does them but in this JVM (Client's main ends with
 * System.exit): the same ClientThreads, CoreWorkload and measurements, through the binding named.
 * YCSB's measurements are one per JVM, so what {@link #report()} shows adds up every run so far.
 */
final class YcsbRun {
    private YcsbRun() {}

    /** Loads {@code recordcount} records, then runs {@code operationcount} operations; ops done. */
    static int loadAndRun(String binding, Properties props, int threads) throws Exception {
        Measurements.setProperties(props);
        Workload workload = new CoreWorkload();
        workload.init(props);
        Tracer tracer = new Tracer.Builder("YCSB").conf(HTraceConfiguration.fromMap(Map.of())).build();
        int records = Integer.parseInt(props.getProperty("recordcount"));
        int operations = Integer.parseInt(props.getProperty("operationcount"));
        try {
            int loaded = phase(binding, props, workload, tracer, false, records, threads);
            if (loaded != records) throw new AssertionError("loaded " + loaded + " of " + records);
            return phase(binding, props, workload, tracer, true, operations, threads);
        } finally {
            workload.cleanup();
            tracer.close();
        }
    }

    private static int phase(String binding, Properties props, Workload workload, Tracer tracer,
            boolean transactions, int ops, int threads) throws Exception {
        CountDownLatch done = new CountDownLatch(threads);
        List<ClientThread> clients = new ArrayList<>();
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int share = ops / threads + (t < ops % threads ? 1 : 0);
            ClientThread c = new ClientThread(DBFactory.newDB(binding, props, tracer), transactions,
                    workload, props, share, 0, done);
            c.setThreadId(t);
            c.setThreadCount(threads);
            clients.add(c);
            running.add(Thread.ofPlatform().name("ycsb-" + t).start(c));
        }
        for (Thread t : running) t.join();
        return clients.stream().mapToInt(ClientThread::getOpsDone).sum();
    }

    /** YCSB's text report of every operation measured in this JVM. */
    static String report() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TextMeasurementsExporter exporter = new TextMeasurementsExporter(out);
        Measurements.getMeasurements().exportMeasurements(exporter);
        exporter.close();
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The properties of a short run of {@code workload} (a, b, ...; YCSB's core workloads). */
    static Properties workload(char workload, int records, int operations) {
        Properties p = new Properties();
        try (var in = java.nio.file.Files.newInputStream(java.nio.file.Path.of("workloads", "workload" + workload))) {
            p.load(in);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        p.setProperty("recordcount", Integer.toString(records));
        p.setProperty("operationcount", Integer.toString(operations));
        p.setProperty("measurementtype", "hdrhistogram");
        return p;
    }
}
