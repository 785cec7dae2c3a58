package dht.client;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Turns what came back from a node (an unexpected status, or no answer at all) into the API's
 * exceptions, and reads the answer details they carry (the one-line reason, {@code Retry-After}).
 */
final class Failures {
    /** Longest reason kept from an error body: the node's are one short line. */
    private static final int MAX_REASON = 300;

    private Failures() {
    }

    /** The exception for an answer with an unexpected {@code status}. */
    static DhtException ofStatus(String node, int status, byte[] body, String retryAfterHeader) {
        String reason = reason(body);
        if (status == 504) return new QuorumNotReachedException(node, reason, retryAfter(retryAfterHeader));
        if (status == 503) return new OverloadedException(node, reason, 1, retryAfter(retryAfterHeader));
        if (status >= 400 && status < 500) return new BadRequestException(node, status, reason);
        return new DhtException("node " + node + " answered " + status + (reason.isEmpty() ? "" : ": " + reason),
                node, status, reason, null);
    }

    /** The exception for a request that got no answer; {@code t} may be wrapped by a future. */
    static DhtException ofThrowable(String node, Throwable t, Duration requestTimeout) {
        Throwable cause = unwrap(t);
        if (cause instanceof DhtException d) return d;
        if (connectFailed(cause)) return new NodeUnreachableException(node, cause);
        if (cause instanceof HttpTimeoutException || cause instanceof java.net.SocketTimeoutException) {
            return new DhtTimeoutException(node, requestTimeout, cause);
        }
        if (cause instanceof IOException) {
            return new DhtException("connection to node " + node + " failed before its answer came (a write may have"
                    + " taken effect): " + cause, node, 0, cause);
        }
        return new DhtException("request to node " + node + " failed: " + cause, node, 0, cause);
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** True when no connection was made, so the request was never sent. */
    static boolean connectFailed(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof HttpConnectTimeoutException || c instanceof ConnectException
                    || c instanceof UnresolvedAddressException || c instanceof UnknownHostException
                    || c instanceof NoRouteToHostException || c instanceof java.net.SocketTimeoutException s
                    && "Connect timed out".equalsIgnoreCase(s.getMessage())) {
                return true;
            }
            if (c.getCause() == c) break;
        }
        return false;
    }

    /** The first line of an error body, trimmed and bounded. */
    static String reason(byte[] body) {
        if (body == null) return "";
        String s = new String(body, 0, Math.min(body.length, MAX_REASON * 4), StandardCharsets.UTF_8).strip();
        int nl = s.indexOf('\n');
        if (nl >= 0) s = s.substring(0, nl).strip();
        return s.length() > MAX_REASON ? s.substring(0, MAX_REASON) + "..." : s;
    }

    /** A {@code Retry-After} value (delay-seconds or an HTTP-date), or null when absent or unreadable. */
    static Duration retryAfter(String header) {
        if (header == null || header.isBlank()) return null;
        String v = header.strip();
        try {
            long seconds = Long.parseLong(v);
            return seconds < 0 ? null : Duration.ofSeconds(seconds);
        } catch (NumberFormatException notSeconds) {
            try {
                Duration d = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME));
                return d.isNegative() ? Duration.ZERO : d;
            } catch (java.time.format.DateTimeParseException notDate) {
                return null;
            }
        }
    }
}
