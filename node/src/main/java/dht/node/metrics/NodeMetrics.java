package dht.node.metrics;

import dht.node.cluster.ClusterView;
import dht.node.http.Admission;
import dht.node.http.ConnectionLimit;
import dht.node.http.RequestMeter;
import dht.node.rpc.PeerCallMeter;
import dht.storage.Store;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * One node's metrics: a Prometheus registry of its own (never a global one, so that several nodes
 * in one JVM, as in tests, keep theirs apart), the request and peer-call meters handed to the HTTP
 * and RPC layers, gauges over figures that are already counted elsewhere (storage, admission,
 * cluster), and Micrometer's JVM and process binders. Every name starts with {@code dht_}
 * ({@link #PREFIX}): the binders' names ({@code jvm_*}, {@code process_*}, {@code system_*}) too.
 */
public final class NodeMetrics implements AutoCloseable {
    /** Put before every meter's name, the binders' and ours alike: ours are named without it. */
    static final String PREFIX = "dht.";

    private final PrometheusMeterRegistry registry;
    private final HttpRequestMetrics requests;
    private final PeerCallMetrics peerCalls;
    private final JvmGcMetrics gc;
    /** What the gauges and function counters read: Micrometer refers to it weakly, this keeps it. */
    private final List<Object> read = new ArrayList<>();
    /** Rows that follow the membership, set again before each scrape. Null until {@link #bind}. */
    private volatile ClusterMetrics.PeerUp peerUp;

    public NodeMetrics() {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                return id.withName(PREFIX + id.getName());
            }
        });
        new JvmMemoryMetrics().bindTo(registry);
        gc = new JvmGcMetrics();
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new JvmInfoMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        requests = new HttpRequestMetrics(registry);
        peerCalls = new PeerCallMetrics(registry);
    }

    /** For the router: every routed request's latency by operation and status. */
    public RequestMeter requests() {
        return requests;
    }

    /** For the peer client: every call to a peer, by peer and outcome. */
    public PeerCallMeter peerCalls() {
        return peerCalls;
    }

    /** The connections open, their bound, the ones refused for it and the ones closed for being idle. */
    public void bind(ConnectionLimit connections) {
        Gauge.builder("http.connections.open", connections, ConnectionLimit::open)
                .description("Connections open (clients' and peers')").register(registry);
        Gauge.builder("http.connections.max", connections, ConnectionLimit::max)
                .description("The most connections open at once; past it a new one gets 503").register(registry);
        FunctionCounter.builder("http.connections.refused", connections, ConnectionLimit::refused)
                .description("Connections refused for the bound").register(registry);
        FunctionCounter.builder("http.connections.idle.closed", connections, ConnectionLimit::idleClosed)
                .description("Connections closed for having nothing to do for the idle timeout").register(registry);
    }

    /** Gauges over the store's, the admission's and the cluster's own figures, read at each scrape. */

    public void bind(Store store, Admission admission, ClusterView view) {
        read.add(StorageMetrics.bind(registry, store));
        read.add(ClusterMetrics.bind(registry, view));
        peerUp = new ClusterMetrics.PeerUp(registry, view);
        read.add(admission);
        Gauge.builder("requests.in.flight", admission, Admission::inFlight)
                .description("Requests holding an admission permit").register(registry);
        Gauge.builder("requests.max.in.flight", admission, Admission::maxInFlight)
                .description("The admission bound (--max-in-flight); past it requests get 503").register(registry);
        Gauge.builder("scans.open", admission, Admission::scans)
                .description("Scans streaming now").register(registry);
        Gauge.builder("request.body.held", admission, Admission::bodyBytesHeld).baseUnit("bytes")
                .description("Request body bytes held (being read or waiting for storage)").register(registry);
        Gauge.builder("answer.held", admission, Admission::answerBytesHeld).baseUnit("bytes")
                .description("Answer bytes held (values read and not yet written, answers waiting)").register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The Prometheus text exposition of every meter. */
    public String scrape() {
        ClusterMetrics.PeerUp p = peerUp;
        if (p != null) p.refresh();
        return registry.scrape();
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }
}
