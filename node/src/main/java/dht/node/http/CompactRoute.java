package dht.node.http;

import dht.storage.Store;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /admin/compact}: flushes the memtables and merges every table into one, forgetting
 * what compaction may forget (expired values, tombstones past the grace and the purge horizon),
 * and answers once it is done. For operators and tests that must not wait for compaction to come
 * by itself. Admin access as {@link AdminRoute}; one at a time (409 while one runs); the work runs
 * on a thread of its own, never the event loop.
 */
public final class CompactRoute implements Route {
    private static final Logger log = LoggerFactory.getLogger(CompactRoute.class);

    private final Store store;
    private final AdminRoute access;
    private final AtomicBoolean running = new AtomicBoolean();

    public CompactRoute(Store store, AdminRoute access) {
        this.store = store;
        this.access = access;
    }

    @Override
    public void handle(Request request, AnswerSlot slot) {
        if (access.refused(request, slot)) return;
        if (!request.method().equals(HttpMethod.POST)) {
            slot.respond(Responses.methodNotAllowed("POST"));
            return;
        }
        if (!running.compareAndSet(false, true)) {
            slot.respond(Responses.text(HttpResponseStatus.CONFLICT, "a compaction asked for is already running"));
            return;
        }
        Thread.ofVirtual().name("admin-compact").start(() -> {
            long t0 = System.nanoTime();
            try {
                store.flush();
                store.compact();
                long millis = (System.nanoTime() - t0) / 1_000_000;
                log.info("compaction asked for by {} done in {} ms", slot.remoteAddress(), millis);
                slot.respond(Responses.json("{\"compactedMillis\":" + millis + "}"));
            } catch (IOException | RuntimeException e) {
                log.warn("compaction asked for by {} failed: {}", slot.remoteAddress(), e.toString());
                String why = String.valueOf(e.getMessage());
                slot.respond(Responses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR,
                        why.startsWith("compaction") ? why : "compaction failed: " + why));
            } finally {
                running.set(false);
            }
        });
    }
}
