package dht.node.http;

import dht.node.cluster.HandOverBatch;
import dht.node.cluster.Membership;
import dht.node.cluster.MembershipChangeException;
import dht.node.cluster.MembershipChanges;
import dht.node.rpc.InternalProtocol;
import dht.storage.Entry;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * {@code /internal/v0/membership}: this node's membership version ({@code op=get}), the two phases
 * of a change other nodes coordinate ({@code prepare}, {@code commit}, {@code abort}), and the
 * changes this node coordinates when asked ({@code join}, {@code joined}, {@code leave},
 * {@code remove}), and the versions a leaving node hands over for a member that is down
 * ({@code handover}, {@link HandOverBatch}). Everything but {@code get} runs on {@code workers} (it may wait for other nodes
 * or for data to move), never on the event loop. A refused change answers its status (400, 404,
 * 409, 503) with the reason, and changed nothing unless it says {@code X-Dht-Change: under-way}
 * (a leave agreed whose data did not all move: the node stays leaving).
 */
public final class MembershipRoute implements Route {
    /** What {@code op=leave} does: this node's data moved to the new owners, then the node out of the membership. */
    @FunctionalInterface
    public interface Leaving {
        Membership leave(String url) throws MembershipChangeException;
    }

    private final MembershipChanges changes;
    private final Leaving leaving;
    private final Executor workers;
    private final Admission admission;

    public MembershipRoute(MembershipChanges changes, Leaving leaving, Executor workers, Admission admission) {
        this.changes = changes;
        this.leaving = leaving;
        this.workers = workers;
        this.admission = admission;
    }

    @Override
    public void handle(Request request, AnswerSlot slot) throws BadRequestException {
        QueryParams params = request.params();
        String op = params.string("op");
        if (op == null) throw new BadRequestException("missing 'op'");
        boolean get = op.equals("get");
        if (!request.method().equals(get ? HttpMethod.GET : HttpMethod.POST)) {
            slot.respond(Responses.methodNotAllowed(get ? "GET" : "POST"));
            return;
        }
        if (get) {
            slot.respond(Responses.bytes(HttpResponseStatus.OK, changes.state().current().bytes()));
            return;
        }
        String url = params.string("url");
        String id = params.string("id");
        String body = request.http().content().toString(StandardCharsets.UTF_8);
        long expect = params.positiveInt("expect", -1);
        switch (op) {
            case "prepare", "commit", "abort" -> {
                if (id == null) throw new BadRequestException("missing 'id'");
            }
            case "join", "joined", "leave", "remove", "handover" -> {
                if (url == null || url.isEmpty()) throw new BadRequestException("missing 'url'");
            }
            default -> throw new BadRequestException("'op' must be get, prepare, commit, abort, join, joined, leave, remove or handover");
        }
        Membership proposal = null;
        if (op.equals("prepare") || op.equals("commit")) {
            try {
                proposal = Membership.decode(body);
            } catch (IllegalArgumentException e) {
                throw new BadRequestException("not a membership: " + e.getMessage());
            }
        }
        List<Entry> handed = null;
        if (op.equals("handover")) {
            try {
                handed = HandOverBatch.decode(ByteBufUtil.getBytes(request.http().content()));
            } catch (IllegalArgumentException e) {
                throw new BadRequestException(e.getMessage());
            }
        }
        if (!admission.tryAcquireChange()) { // a graceful stop has begun
            slot.refuseIfStopping(admission);
            return;
        }
        slot.onRelease(admission::releaseChange);
        Membership p = proposal;
        List<Entry> h = handed;
        workers.execute(() -> {
            try {
                Membership answer = switch (op) {
                    case "prepare" -> {
                        changes.prepare(expect, id, p);
                        yield changes.state().current();
                    }
                    case "commit" -> {
                        changes.commit(id, p);
                        yield changes.state().current();
                    }
                    case "abort" -> {
                        changes.abort(id);
                        yield changes.state().current();
                    }
                    case "join" -> changes.join(url, expect);
                    case "joined" -> changes.joined(url);
                    case "leave" -> leaving.leave(url);
                    case "handover" -> {
                        changes.handOver(url, h);
                        yield changes.state().current();
                    }
                    default -> changes.remove(url);
                };
                slot.respond(() -> Responses.bytes(HttpResponseStatus.OK, answer.bytes()));
            } catch (MembershipChangeException e) {
                slot.respond(() -> {
                    var r = Responses.text(HttpResponseStatus.valueOf(e.status()), e.getMessage());
                    if (e.outcome() == MembershipChangeException.Outcome.UNDER_WAY) {
                        r.headers().set(InternalProtocol.CHANGE, InternalProtocol.CHANGE_UNDER_WAY);
                    }
                    return r;
                });
            } catch (Exception | Error e) {
                slot.respond(() -> Responses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR,
                        "membership " + op + " failed: " + e));
            }
        });
    }
}
