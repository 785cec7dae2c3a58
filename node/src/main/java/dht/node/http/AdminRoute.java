package dht.node.http;

import dht.node.admin.Profiler;
import dht.node.exec.Completions;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code GET /admin/profile?event=cpu|alloc|lock|wall&duration=10s[&threads=true]}: an async-profiler
 * flame graph of this node, as HTML (with {@code threads=true}, a tree per thread). With an admin
 * token, admin endpoints answer only requests carrying {@code Authorization: Bearer <token>},
 * loopback clients included (a local process is not necessarily the operator); without one,
 * loopback clients only. Anyone else gets 403.
 * A profile is an idle wait, not work: it takes no admission permit.
 */
public final class AdminRoute implements Route {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m)?");

    private final Profiler profiler;
    private static final String BEARER = "Bearer ";
    /** The admin token's bytes, without the scheme; null: none (loopback clients only). */
    private final byte[] token;

    public AdminRoute(Profiler profiler, String adminToken) {
        this.profiler = profiler;
        this.token = adminToken == null || adminToken.isEmpty() ? null
                : adminToken.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void handle(Request request, AnswerSlot slot) throws BadRequestException {
        if (refused(request, slot)) return;
        if (!request.method().equals(HttpMethod.GET)) {
            slot.respond(Responses.methodNotAllowed("GET"));
            return;
        }
        QueryParams params = request.params();
        String event = params.string("event");
        if (event == null) event = "cpu";
        String d = params.string("duration");
        Duration duration = d == null ? Duration.ofSeconds(10) : parseDuration(d);
        boolean byThread = parseThreads(params.string("threads"));
        profiler.profile(event, duration, byThread).whenComplete((html, e) -> {
            if (e == null) {
                slot.respond(Responses.html(html));
                return;
            }
            Throwable cause = Completions.cause(e);
            HttpResponseStatus status = switch (cause) {
                case Profiler.BusyException b -> HttpResponseStatus.CONFLICT;
                case Profiler.UnavailableException u -> HttpResponseStatus.SERVICE_UNAVAILABLE;
                case IllegalArgumentException i -> HttpResponseStatus.BAD_REQUEST;
                default -> HttpResponseStatus.INTERNAL_SERVER_ERROR;
            };
            slot.respond(Responses.text(status, String.valueOf(cause.getMessage())));
        });
    }

    /** Answers 403 and returns true unless the request may use admin endpoints (every admin route asks this). */
    boolean refused(Request request, AnswerSlot slot) {
        if (allowed(slot.remoteAddress(), request.http().headers().get(HttpHeaderNames.AUTHORIZATION))) return false;
        slot.respond(Responses.text(HttpResponseStatus.FORBIDDEN,
                token != null
                ? "admin endpoints need this node's admin token (Authorization: Bearer TOKEN)"
                : "admin endpoints answer loopback clients only (or set --admin-token)"));
        return true;
    }

    /** {@code threads}: absent or {@code false}, or {@code true} for a tree per thread. */
    static boolean parseThreads(String s) throws BadRequestException {
        if (s == null || s.equals("false")) return false;
        if (s.equals("true")) return true;
        throw new BadRequestException("'threads' must be true or false");
    }

    /** {@code 10s}, {@code 500ms}, {@code 2m}, or a bare number of seconds. */
    static Duration parseDuration(String s) throws BadRequestException {
        Matcher m = DURATION.matcher(s);
        if (!m.matches()) throw new BadRequestException("'duration' must be a whole number of ms, s or m (seconds if bare), such as 10s, 500ms or 2m");
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofSeconds(n);
        };
    }

    boolean allowed(SocketAddress remote, String authorization) {
        if (token != null) {
            // The scheme's name matches without case (RFC 9110, 11.1); the token exactly.
            return authorization != null && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
                    && MessageDigest.isEqual(token, authorization.substring(BEARER.length()).getBytes(StandardCharsets.UTF_8));
        }
        return remote instanceof InetSocketAddress inet && inet.getAddress() != null && inet.getAddress().isLoopbackAddress();
    }
}
