package dht.node.metrics;

import dht.storage.EngineCounters;
import dht.storage.Store;
import dht.storage.StoreStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The storage engine's figures as {@code dht_storage_*}: its sizes ({@link StoreStats}) as gauges,
 * its running totals ({@link EngineCounters}, its storage errors among them) as function counters,
 * and when its latest storage error was met as a gauge.
 */
final class StorageMetrics {
    private StorageMetrics() {
    }

    /** Returns what the meters read, which the caller must keep: Micrometer holds it weakly. */
    static Object bind(MeterRegistry registry, Store store) {
        EngineCounters c = store.counters();
        counter(registry, c, "storage.flushes", null, "Memtables flushed to tables", EngineCounters::flushes);
        counter(registry, c, "storage.flush.written", "bytes", "Bytes of tables written by flushes", EngineCounters::flushBytes);
        seconds(registry, c, "storage.flush.duration", "Time spent flushing memtables", EngineCounters::flushNanos);
        counter(registry, c, "storage.compactions", null, "Compactions installed", EngineCounters::compactions);
        counter(registry, c, "storage.compaction.read", "bytes", "Bytes of input tables merged by compactions",
                EngineCounters::compactionBytesRead);
        counter(registry, c, "storage.compaction.written", "bytes", "Bytes of tables written by compactions",
                EngineCounters::compactionBytesWritten);
        seconds(registry, c, "storage.compaction.duration", "Time spent compacting", EngineCounters::compactionNanos);
        counter(registry, c, "storage.write.stalls", null, "Write batches that waited for a flush (too many memtables)",
                EngineCounters::writeStalls);
        seconds(registry, c, "storage.write.stall.duration", "Time write batches waited for a flush", EngineCounters::writeStallNanos);
        counter(registry, c, "storage.write.slowdowns", null, "Write batches delayed because compaction was behind",
                EngineCounters::writeSlowdowns);
        counter(registry, c, "storage.errors", null, "Storage errors: failed log writes and fsyncs, flushes, compactions, damage found",
                x -> x.errors().count());
        // A time, not an age, as Prometheus has it: the age is time() minus it, and alerts compare that.
        Gauge.builder("storage.last.error.timestamp", c, x -> x.errors().latestAtMillis() / 1e3).baseUnit("seconds")
                .description("When the latest storage error was met, epoch seconds; 0 before the first").register(registry);
        Snapshot<StoreStats> stats = new Snapshot<>(store::stats);
        gauge(registry, stats, "storage.tables", null, "Live sorted tables", StoreStats::tables);
        gauge(registry, stats, "storage.table", "bytes", "Bytes in live sorted tables", StoreStats::tableBytes);
        gauge(registry, stats, "storage.memtable", "bytes", "Approximate bytes in the active and immutable memtables",
                StoreStats::memtableBytes);
        gauge(registry, stats, "storage.wal", "bytes", "Bytes in live write-ahead log files", StoreStats::walBytes);
        gauge(registry, stats, "storage.pending.flushes", null, "Immutable memtables not yet written to a table",
                StoreStats::pendingFlushes);
        gauge(registry, stats, "storage.pending.compactions", null, "Compactions not finished: the one running and those due",
                StoreStats::pendingCompactions);
        gauge(registry, stats, "storage.damaged.tables", null, "Live tables with a block that fails its checksum",
                StoreStats::damagedTables);
        return java.util.List.of(c, stats);
    }

    private static void counter(MeterRegistry registry, EngineCounters c, String name, String unit, String description,
                                ToDoubleFunction<EngineCounters> f) {
        FunctionCounter.builder(name, c, f).baseUnit(unit).description(description).register(registry);
    }

    private static void seconds(MeterRegistry registry, EngineCounters c, String name, String description,
                                ToLongFunction<EngineCounters> nanos) {
        FunctionCounter.builder(name, c, x -> nanos.applyAsLong(x) / 1e9).baseUnit("seconds").description(description)
                .register(registry);
    }

    private static void gauge(MeterRegistry registry, Snapshot<StoreStats> stats, String name, String unit,
                              String description, ToDoubleFunction<StoreStats> f) {
        Gauge.builder(name, stats, s -> f.applyAsDouble(s.get())).baseUnit(unit).description(description).register(registry);
    }
}
