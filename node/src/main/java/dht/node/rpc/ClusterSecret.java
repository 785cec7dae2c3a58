package dht.node.rpc;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret every node of a cluster shares, and the proof an internal request carries of it
 * (docs/wire-format.md, "Cluster secret"): header {@value #HEADER} is
 * {@code <epoch millis> <base64url HMAC-SHA256>}, the HMAC taken over the method, the request
 * target (path and query), the timestamp, the {@link #COVERED} headers and the SHA-256 of the
 * body. A proof is good within
 * {@link #WINDOW} of the receiver's clock; there is no nonce cache (the page says why).
 *
 * <p>An answer to a proven request proves the secret too, so that a node without it cannot pass
 * for a member by answering on its address (a membership it made up, a value it forged): header
 * {@value #ANSWER_HEADER} is the HMAC over "answer", the request's own proof, the status, the
 * {@link #COVERED} headers and the SHA-256 of the body; a streamed answer's (a scan), whose body is not known when its head is
 * written, over "stream" and the request's proof alone, its records covered by {@link StreamSeal}s in the body.
 * Binding the request's proof, which differs for every request, makes an answer useless for
 * any other request. Refusals made before a request's proof is checked, which carry no data
 * ({@link #mayComeUnproven}), may come without one.
 *
 * <p>Thread-safe: each thread signs and checks with its own {@link Mac} and {@link MessageDigest}.
 */
public final class ClusterSecret {
    public static final String HEADER = "X-Dht-Auth";
    /** The header of an answer's proof. */
    public static final String ANSWER_HEADER = "X-Dht-Answer-Auth";
    /** What a client says of an answer that lacks its proof, after naming who gave it. */
    public static final String UNPROVEN = "without the cluster secret's proof"
            + " (not a member of this cluster: another process on its address?)";
    /** How far a proof's timestamp may be from the receiver's clock, either way. */
    public static final Duration WINDOW = Duration.ofSeconds(30);
    /** Shortest secret accepted: 16 bytes of a random secret are 128 bits. */
    public static final int MIN_BYTES = 16;

    /**
     * The headers both proofs cover, in this order: each carries part of a version (its timestamp,
     * whether it is a tombstone, its expiry), a membership version, a clock or where a tree page
     * goes on, so a proof replayed or passed on with any of them changed, added or removed does
     * not hold. Every other header only frames the message or names a refusal that needs no proof.
     */
    static final List<String> COVERED = List.of(InternalProtocol.TIMESTAMP, InternalProtocol.TOMBSTONE,
            InternalProtocol.EXPIRY, InternalProtocol.MEMBERSHIP, InternalProtocol.CLOCK, InternalProtocol.CLOCK_REFUSED,
            InternalProtocol.TREE_NEXT, InternalProtocol.CHANGE);

    /** A message's header values by name, in the order they were sent, names matched without case. */
    @FunctionalInterface
    public interface Headers {
        /** No header at all. */
        Headers NONE = name -> List.of();

        List<String> all(String name);

        static Headers of(io.netty.handler.codec.http.HttpHeaders h) {
            return h::getAll;
        }

        static Headers of(java.net.http.HttpHeaders h) {
            return h::allValues;
        }
    }

    /** Removes every {@link #COVERED} header from {@code h}: what an answer without a good proof may not say. */
    static void dropCovered(io.netty.handler.codec.http.HttpHeaders h) {
        for (String name : COVERED) h.remove(name);
    }

    /** What a request's proof shows. */
    public enum Verdict { GOOD, MISSING, WRONG }

    private final SecretKeySpec key;
    private final ThreadLocal<Mac> macs;
    private final ThreadLocal<MessageDigest> digests = ThreadLocal.withInitial(() -> newInstance("SHA-256"));

    public ClusterSecret(byte[] secret) {
        if (secret.length < MIN_BYTES) {
            throw new IllegalArgumentException("a cluster secret must have at least " + MIN_BYTES + " bytes, got " + secret.length);
        }
        SecretKeySpec key = new SecretKeySpec(secret.clone(), "HmacSHA256");
        this.key = key;
        this.macs = ThreadLocal.withInitial(() -> {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(key);
                return mac;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
            }
        });
    }

    /** The {@value #HEADER} value for a request with this body and none of the {@link #COVERED} headers, stamped {@code nowMillis}. */
    public String sign(String method, String uri, byte[] body, long nowMillis) {
        return sign(method, uri, Headers.NONE, body, nowMillis);
    }

    /** The {@value #HEADER} value for a request with these headers and this body, stamped {@code nowMillis}. */
    public String sign(String method, String uri, Headers headers, byte[] body, long nowMillis) {
        MessageDigest d = digests.get();
        d.update(body);
        return nowMillis + " " + mac(method, uri, nowMillis, headers, d.digest());
    }

    /** Checks {@code header} against the request; the body is read in place, never copied. */
    public Verdict verify(String method, String uri, Headers headers, ByteBuf body, String header, long nowMillis) {
        if (header == null || header.isEmpty()) return Verdict.MISSING;
        int space = header.indexOf(' ');
        if (space <= 0) return Verdict.WRONG;
        long stamped;
        try {
            stamped = Long.parseLong(header, 0, space, 10);
        } catch (NumberFormatException e) {
            return Verdict.WRONG;
        }
        if (Math.abs(nowMillis - stamped) > WINDOW.toMillis()) return Verdict.WRONG;
        MessageDigest d = digests.get();
        if (body.readableBytes() > 0) {
            for (ByteBuffer b : body.nioBuffers()) d.update(b);
        }
        String expected = mac(method, uri, stamped, headers, d.digest());
        byte[] given = header.substring(space + 1).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII), given) ? Verdict.GOOD : Verdict.WRONG;
    }

    /** The {@value #ANSWER_HEADER} value of a complete answer to the request whose proof was {@code requestProof}. */
    public String answer(String requestProof, int status, Headers headers, ByteBuf body) {
        MessageDigest d = digests.get();
        if (body.readableBytes() > 0) {
            for (ByteBuffer b : body.nioBuffers()) d.update(b);
        }
        return answerMac(answerHead(requestProof, status, headers), d.digest());
    }

    /** The {@value #ANSWER_HEADER} value of a streamed answer (its head, whatever its status) to that request. */
    public String streamAnswer(String requestProof) {
        return answerMac("stream\n" + requestProof + "\n", new byte[0]);
    }

    /** The seals of the records of a streamed answer to the request whose proof was {@code requestProof}: one per stream and side. */
    public StreamSeal streamSeal(String requestProof) {
        return new StreamSeal(key, requestProof);
    }

    /** Whether {@code header} proves the complete answer {@code status}, {@code body} to the request whose proof was {@code requestProof}. */
    public boolean provesAnswer(String requestProof, int status, Headers headers, byte[] body, String header) {
        if (header == null) return false;
        MessageDigest d = digests.get();
        return same(answerMac(answerHead(requestProof, status, headers), d.digest(body)), header);
    }

    /** Whether {@code header} proves a streamed answer to the request whose proof was {@code requestProof}. */
    public boolean provesStreamAnswer(String requestProof, String header) {
        return header != null && same(streamAnswer(requestProof), header);
    }

    /**
     * Whether an answer with {@code status} may come without a proof: a refusal that the pipeline
     * makes before it checks the request's proof (a malformed or oversized request, an overloaded
     * or stopping node, a stalled body, a proof it does not take) or that a failing node makes. It
     * changes nothing and carries no data, so it is taken as the refusal it is; every other answer
     * must prove the secret, or it is no answer from a member. (So a process on a member's address
     * can still pass it off as busy, 503, rather than down: it denies service, as by not
     * answering, and can plant no data or membership.)
     */
    public static boolean mayComeUnproven(int status) {
        return status == 400 || status == 401 || status == 403 || status == 408 || status == 413 || status == 414
                || status == 417 || status == 431 || status == 500 || status == 501 || status == 503;
    }

    private static String answerHead(String requestProof, int status, Headers headers) {
        return covered(new StringBuilder("answer\n").append(requestProof).append('\n').append(status).append('\n'), headers);
    }

    /** Appends {@code name:value} and a line feed for each value of each {@link #COVERED} header, in order. */
    private static String covered(StringBuilder b, Headers headers) {
        for (String name : COVERED) {
            for (String v : headers.all(name)) b.append(name.toLowerCase(java.util.Locale.ROOT)).append(':').append(v).append('\n');
        }
        return b.toString();
    }

    private static boolean same(String expected, String given) {
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII), given.getBytes(StandardCharsets.US_ASCII));
    }

    private String answerMac(String head, byte[] bodyDigest) {
        Mac mac = macs.get();
        mac.update(head.getBytes(StandardCharsets.UTF_8));
        mac.update(bodyDigest);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal());
    }

    private String mac(String method, String uri, long stamped, Headers headers, byte[] bodyDigest) {
        Mac mac = macs.get();
        String head = covered(new StringBuilder(method).append('\n').append(uri).append('\n').append(stamped).append('\n'), headers);
        mac.update(head.getBytes(StandardCharsets.UTF_8));
        mac.update(bodyDigest);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal());
    }

    private static MessageDigest newInstance(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(algorithm + " is part of every JDK", e);
        }
    }
}
