package dht.node.metrics;

import dht.storage.Store;
import dht.storage.StoreStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;

/** The storage engine's figures ({@link StoreStats}) as gauges, {@code dht_storage_*}. */
final class StorageMetrics {
    private StorageMetrics() {
    }

    static void bind(MeterRegistry registry, Store store) {
        Snapshot<StoreStats> stats = new Snapshot<>(store::stats);
        gauge(registry, stats, "storage.tables", null, "Live sorted tables", StoreStats::tables);
        gauge(registry, stats, "storage.table", "bytes", "Bytes in live sorted tables", StoreStats::tableBytes);
        gauge(registry, stats, "storage.memtable", "bytes", "Approximate bytes in the active and immutable memtables",
                StoreStats::memtableBytes);
        gauge(registry, stats, "storage.wal", "bytes", "Bytes in live write-ahead log files", StoreStats::walBytes);
        gauge(registry, stats, "storage.pending.flushes", null, "Immutable memtables not yet written to a table",
                StoreStats::pendingFlushes);
        gauge(registry, stats, "storage.pending.compactions", null, "Compactions the engine would like to run now",
                StoreStats::pendingCompactions);
        gauge(registry, stats, "storage.damaged.tables", null, "Live tables with a block that fails its checksum",
                StoreStats::damagedTables);
    }

    private static void gauge(MeterRegistry registry, Snapshot<StoreStats> stats, String name, String unit,
                              String description, ToDoubleFunction<StoreStats> f) {
        Gauge.builder(name, stats, s -> f.applyAsDouble(s.get())).baseUnit(unit).description(description).register(registry);
    }
}
