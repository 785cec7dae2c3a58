package dht.node.http;

import dht.node.cluster.Answer;
import dht.node.cluster.Coordinator;
import dht.node.cluster.Quorum;
import dht.node.cluster.RepairAnswer;
import dht.node.exec.Completions;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /v0/entity}: GET, PUT and DELETE of one key, coordinated over its replicas. Everything is
 * validated before anything is touched; the request takes an admission permit (503 when none is
 * left) that it holds until its answer is written.
 */
public final class EntityRoute implements Route {
    private static final Logger log = LoggerFactory.getLogger(EntityRoute.class);

    private final Coordinator coordinator;
    private final java.util.function.Supplier<ClusterSizes> sizes;
    private final Admission admission;
    private final PauseWatch pauses;

    public EntityRoute(Coordinator coordinator, int clusterSize, Admission admission) {
        this(coordinator, () -> ClusterSizes.everyNode(clusterSize), admission);
    }

    /** With {@code sizes} read for each request: the membership, and so the sizes, may change. */
    public EntityRoute(Coordinator coordinator, java.util.function.Supplier<ClusterSizes> sizes, Admission admission) {
        this(coordinator, sizes, admission, PauseWatch.NONE);
    }

    /** @param pauses whether the process just stood still: writes read then are refused ({@link PauseWatch}) */
    public EntityRoute(Coordinator coordinator, java.util.function.Supplier<ClusterSizes> sizes, Admission admission,
                       PauseWatch pauses) {
        this.coordinator = coordinator;
        this.sizes = sizes;
        this.admission = admission;
        this.pauses = pauses;
    }

    @Override
    public void handle(Request request, AnswerSlot slot) throws BadRequestException {
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.PUT) && !method.equals(HttpMethod.DELETE)) {
            slot.respond(Responses.methodNotAllowed("GET, PUT, DELETE"));
            return;
        }
        QueryParams params = request.params();
        byte[] id = params.bytes("id");
        if (id == null || id.length == 0) throw new BadRequestException("missing or empty 'id'");
        boolean repairAll = repairAll(params, method);
        // A repair answers only once every replica of 'from' was heard and brought up to date: by
        // default it takes all of them to call the key repaired.
        Quorum quorum = QuorumParams.parse(params, sizes.get(), repairAll);
        long ttl = ttlSeconds(params, method);
        if (!method.equals(HttpMethod.GET) && pauses.readJustAfterAPause(slot.readNanos)) {
            slot.respond(Responses.overloaded("this node stood still for " + pauses.pauseMillis() + " ms just now;"
                    + " the write was not applied (its client may have given up meanwhile): send it again"));
            return;
        }
        if (!admit(admission, slot)) return;
        if (repairAll) {
            repair(id, quorum, slot);
            return;
        }
        if (method.equals(HttpMethod.GET)) {
            get(id, quorum, slot);
            return;
        }
        CompletableFuture<Answer> answer;
        try {
            if (method.equals(HttpMethod.PUT)) {
                answer = coordinator.put(id, request.http().content(), quorum, ttl);
            } else {
                answer = coordinator.delete(id, quorum);
            }
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((a, e) -> slot.respond(() -> toResponse(method, a, e)));
    }

    /**
     * A PUT or DELETE of one key may share a group commit with the writes pipelined behind it: each
     * takes effect in the order it starts, and no other connection sees a later one without the
     * earlier ones.
     */
    @Override
    public boolean mayShareGroupCommit(HttpMethod method) {
        return method.equals(HttpMethod.PUT) || method.equals(HttpMethod.DELETE);
    }

    /**
     * The value is reserved in the answer budget before the store copies it ({@link AnswerReservation}),
     * and stays reserved until the answer is handed to the socket or dropped.
     */
    private void get(byte[] id, Quorum quorum, AnswerSlot slot) {
        AnswerReservation reservation = new AnswerReservation(admission);
        try {
            CompletableFuture<Answer> answer;
            try {
                answer = coordinator.get(id, quorum, reservation);
            } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            answer.whenComplete((a, e) -> answerGet(a, e, reservation, slot));
        } catch (Error e) { // a read may be under way already, and would reserve with nobody to give back
            giveUp(reservation, slot, e);
        }
    }

    private void answerGet(Answer a, Throwable e, AnswerReservation reservation, AnswerSlot slot) {
        try {
            long held = reservation.close();
            // What was reserved is the answer's only if this node's read is the answer (in a
            // cluster a peer's newer value may win): else the answer is counted if it has to wait
            if (held > 0 && a != null && a.kind() == Answer.Kind.FOUND && held == AnswerReservation.cost(a.value().length)) {
                slot.holdAnswer(admission, held);
            } else {
                admission.releaseAnswer(held);
            }
            slot.respond(() -> toResponse(HttpMethod.GET, a, e));
        } catch (Throwable t) {
            giveUp(reservation, slot, t);
        }
    }

    /**
     * An Error (a full heap) on the way to a GET's answer: the value reserved goes back (a read
     * still running reserves nothing once the reservation is closed), and the slot gives up. Thrown
     * on from a callback, the Error would be swallowed by its future, and both held for good.
     */
    private void giveUp(AnswerReservation reservation, AnswerSlot slot, Throwable e) {
        admission.releaseAnswer(reservation.close());
        slot.abandon(e);
    }

    /** {@code repair=all} (GET only); absent is false; any other value, or on PUT or DELETE, a 400. */
    private static boolean repairAll(QueryParams params, HttpMethod method) throws BadRequestException {
        String repair = params.string("repair");
        if (repair == null) return false;
        if (!repair.equals("all")) throw new BadRequestException("'repair' must be all");
        if (!method.equals(HttpMethod.GET)) throw new BadRequestException("'repair' applies to GET only");
        return true;
    }

    /** The longest {@code ttl}: 20 years of 365 days, in seconds (docs/api.md). */
    public static final long MAX_TTL_SECONDS = 630_720_000L;

    /**
     * {@code ttl} in seconds (PUT only): a whole number from 1 to {@link #MAX_TTL_SECONDS}; absent
     * is 0 (the value never expires); anything else, or on GET or DELETE, a 400.
     */
    private static long ttlSeconds(QueryParams params, HttpMethod method) throws BadRequestException {
        if (params.bytes("ttl") == null) return 0;
        if (!method.equals(HttpMethod.PUT)) throw new BadRequestException("'ttl' applies to PUT only");
        return params.longInRange("ttl", 1, MAX_TTL_SECONDS, 0);
    }

    /** The operator's repair of one key: the usual GET answer, with what was repaired in {@code X-Dht-Repair}. */
    private void repair(byte[] id, Quorum quorum, AnswerSlot slot) {
        CompletableFuture<RepairAnswer> answer;
        try {
            answer = coordinator.repair(id, quorum);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((a, e) -> slot.respond(() -> {
            FullHttpResponse r = toResponse(HttpMethod.GET, a == null ? null : a.answer(), e);
            if (a != null) r.headers().set(REPAIR_HEADER, a.header());
            return r;
        }));
    }

    /** The counts of a {@code repair=all} GET: {@code sent=S failed=F unreachable=U}. */
    public static final String REPAIR_HEADER = "X-Dht-Repair";

    /** Takes a permit for the request or answers 503 at once; the permit comes back with the answer. */
    static boolean admit(Admission admission, AnswerSlot slot) {
        if (slot.refuseIfStopping(admission)) return false;
        if (!admission.tryAcquire()) {
            slot.respond(Responses.overloaded("overloaded: too many requests in flight"));
            return false;
        }
        slot.onRelease(admission::release);
        return true;
    }

    private FullHttpResponse toResponse(HttpMethod method, Answer a, Throwable e) {
        if (e != null) {
            Throwable cause = Completions.cause(e);
            if (cause instanceof RejectedExecutionException) {
                return Responses.overloaded("overloaded: storage queue full");
            }
            if (cause instanceof dht.node.cluster.ClockDisagreementException off) {
                return Responses.retryLater(HttpResponseStatus.SERVICE_UNAVAILABLE, off.getMessage());
            }
            log.error("{} failed", method, cause);
            return Responses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: " + cause.getClass().getSimpleName());
        }
        return switch (a.kind()) {
            case FOUND -> Responses.bytes(HttpResponseStatus.OK, a.value());
            case NOT_FOUND -> Responses.text(HttpResponseStatus.NOT_FOUND, "not found");
            case STORED -> Responses.empty(HttpResponseStatus.CREATED);
            case DELETED -> Responses.empty(HttpResponseStatus.ACCEPTED);
            // On a node that is its whole cluster the only replica is its own store: say so, or a
            // user of one node reads about replicas when its disk failed.
            case NOT_ENOUGH_REPLICAS -> Responses.text(HttpResponseStatus.GATEWAY_TIMEOUT, sizes.get().nodes() == 1
                    ? "not enough replicas answered: this node's store did not complete the request (its log says why)"
                    : "not enough replicas answered");
            // Still the contract's 504 (fewer than ack answered), but a busy replica is up: a retry may succeed.
            case REPLICAS_BUSY -> Responses.retryLater(HttpResponseStatus.GATEWAY_TIMEOUT,
                    "not enough replicas answered: a replica refused for overload; retry later");
            case OVERLOADED -> Responses.overloaded("overloaded: too many large answers held at once; retry later");
            // Still the contract's 504, but the operator's problem is named: a damaged table (logged
            // once by the store), which no retry mends; the other replicas may still answer the key.
            case STORE_DAMAGED -> Responses.text(HttpResponseStatus.GATEWAY_TIMEOUT,
                    "not enough replicas answered: this node's store has a damaged table: " + a.reason());
        };
    }
}
