package dht.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sends of one request: which node is next, and whether a failure is retried. A 503 is
 * retried as the {@link RetryPolicy} says, on the next node; a node that cannot be connected to is
 * skipped for the next one until every node has failed in a row (nothing was sent, so this is safe
 * for writes too). Every other failure ends the request. One per request; not thread-safe, but the
 * sends of a request happen one after another.
 */
final class Attempts {
    private static final Logger log = LoggerFactory.getLogger(Attempts.class);

    private final Nodes nodes;
    private final RetryPolicy policy;
    private int index;
    private int answered;
    private final List<NodeUnreachableException> unreachable = new ArrayList<>();

    Attempts(Nodes nodes, RetryPolicy policy) {
        this.nodes = nodes;
        this.policy = policy;
        this.index = nodes.first();
    }

    /** The node the next send goes to. */
    String node() {
        return nodes.base(index);
    }

    /**
     * After a send failed with {@code failure}: the wait before the next send (whose node
     * {@link #node()} then names), or the exception that ends the request, thrown.
     */
    Duration next(DhtException failure) {
        if (failure instanceof NodeUnreachableException u) {
            unreachable.add(u);
            if (unreachable.size() < nodes.size()) {
                log.debug("{}; trying node {}", u.getMessage(), nodes.base(index + 1));
                index++;
                return Duration.ZERO;
            }
            for (int i = 0; i < unreachable.size() - 1; i++) u.addSuppressed(unreachable.get(i));
            throw u;
        }
        unreachable.clear();
        answered++;
        if (!(failure instanceof OverloadedException o)) throw failure;
        Duration retryAfter = o.retryAfter().orElse(null);
        Duration wait = policy.delayAfterOverload(answered, retryAfter);
        if (wait == null) throw new OverloadedException(o.node(), o.reason(), answered, retryAfter);
        index++;
        log.debug("node {} is overloaded ({}); attempt {} of {} in {} ms on node {}", o.node(), o.reason(),
                answered + 1, policy.maxAttempts(), wait.toMillis(), node());
        return wait;
    }
}
