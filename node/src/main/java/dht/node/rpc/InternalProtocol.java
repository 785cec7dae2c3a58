package dht.node.rpc;

import java.io.ByteArrayOutputStream;

/**
 * The internal protocol's paths, headers and key encoding (docs/wire-format.md), shared by both
 * sides so they cannot drift apart. The message bodies are {@link ReplicaBatch}'s and
 * {@link ScanRecord}'s.
 *
 * <p>A key travels as a query parameter with every byte outside the unreserved set
 * percent-encoded, so that any key bytes (not only valid UTF-8) round-trip exactly.
 */
public final class InternalProtocol {
    /**
     * On the 503 of a node in graceful stop (any request it refuses then): a coordinator counts that
     * replica failed, not busy, since a retry a moment later meets a closed port.
     */
    public static final String STOPPING = "X-Dht-Stopping";
    /** Point operations: one read or write of one key. */
    public static final String ENTITY_PATH = "/internal/v0/entity";
    /** Batched point operations ({@link ReplicaBatch}). */
    public static final String BATCH_PATH = "/internal/v0/batch";
    /** A node's range stream of its own store ({@link ScanRecord}s). */
    public static final String SCAN_PATH = "/internal/v0/entities";
    /** Anti-entropy: a node's hash tree over the keys it shares with the asking peer ({@code TreeWire}). */
    public static final String TREE_PATH = "/internal/v0/tree";
    /** Anti-entropy: one page of a node's entries under some of the tree's leaves ({@code TreeWire}). */
    public static final String TREE_PAGE_PATH = "/internal/v0/tree/entries";
    /** On a tree page's answer: where the next page starts; absent on the last page. */
    static final String TREE_NEXT = "X-Dht-Tree-Next";
    /**
     * What the failure detector's probe asks for: any HTTP answer but 401/403 shows the peer is up.
     * Internal, so that a peer with another cluster secret answers it 403 and stays down.
     */
    public static final String PROBE_PATH = "/internal/v0/ping";
    /** Membership: its current version, and the phases and operations of a change (docs/wire-format.md, "Membership"). */
    public static final String MEMBERSHIP_PATH = "/internal/v0/membership";
    static final String TIMESTAMP = "X-Dht-Timestamp";
    static final String TOMBSTONE = "X-Dht-Tombstone";
    /** A value's expiry, epoch milliseconds, on a PUT and on a read's answer; absent: never. */
    static final String EXPIRY = "X-Dht-Expiry";
    /** On every response of a replica: its clock, so coordinators stay ahead of what peers have issued. */
    public static final String CLOCK = "X-Dht-Clock";
    /**
     * On a replica's 409 to a write whose timestamp was too far ahead of its clock: by how many
     * milliseconds. The coordinator counts the replica failed ({@code TimestampRefusedException}).
     */
    static final String CLOCK_REFUSED = "X-Dht-Clock-Refused";
    /**
     * On a coordinator's replica call: its membership version. On a replica's 409 to a call made on
     * an older version than its own, which it did not apply: the replica's version
     * ({@code MembershipFence}).
     */
    static final String MEMBERSHIP = "X-Dht-Membership";
    /**
     * On a membership operation's refusal that left the change agreed and under way (a leave that
     * failed moving its data): {@code under-way}. Absent: nothing changed.
     */
    public static final String CHANGE = "X-Dht-Change";
    public static final String CHANGE_UNDER_WAY = "under-way";

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private InternalProtocol() {}

    /** The batch path, marked {@code move=CHANGE} when the batch is data membership change {@code change} moves (positive). */
    static String batchUri(long change) {
        return change > 0 ? BATCH_PATH + "?move=" + change : BATCH_PATH;
    }

    /**
     * The membership change a batch's {@code move} marker names: 0 when there is none, -1 when it is
     * malformed (not a positive number).
     */
    static long moveOf(String uri) {
        int at = valueAt(uri, "move");
        if (at < 0) return 0;
        byte[] v = percentDecode(uri, at, valueEnd(uri, at));
        if (v == null) return -1;
        try {
            long change = Long.parseLong(new String(v, java.nio.charset.StandardCharsets.US_ASCII));
            return change > 0 ? change : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static String entityUri(byte[] key) {
        return ENTITY_PATH + "?id=" + encode(key);
    }

    /** The range stream of {@code [start, end)}: an empty start (from the first key) and a null end are left out. */
    static String scanUri(byte[] start, byte[] end) {
        return scanUri(start, end, 0);
    }

    /** As above, the peer stopping after {@code limit} values (tombstones not counted); 0 is left out (no limit). */
    static String scanUri(byte[] start, byte[] end, int limit) {
        StringBuilder uri = new StringBuilder(SCAN_PATH).append('?');
        if (start.length > 0) uri.append("start=").append(encode(start)).append('&');
        if (end != null) uri.append("end=").append(encode(end));
        if (limit > 0) uri.append(end != null ? "&" : "").append("limit=").append(limit);
        return uri.toString();
    }

    /**
     * A join stream: from {@code start} (inclusive; empty for the first key) to the end, only the
     * keys the peer sends to {@code joiner} under membership {@code version}, or, with
     * {@code instead} not null, those it sends in the stead of that member, down for good.
     */
    static String joinScanUri(byte[] start, String joiner, long version, String instead) {
        return scanUri(start, null, 0) + "joiner=" + encode(joiner.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                + "&version=" + version
                + (instead == null ? "" : "&instead=" + encode(instead.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    /** Percent-encodes every byte outside the unreserved set (RFC 3986). */
    static String encode(byte[] key) {
        StringBuilder sb = new StringBuilder(key.length * 3);
        for (byte b : key) {
            int c = b & 0xFF;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '_' || c == '.' || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        return sb.toString();
    }

    /** The raw bytes of the {@code id} parameter of {@code uri}, or {@code null} if it is missing, empty or malformed. */
    static byte[] idOf(String uri) {
        byte[] key = paramOf(uri, "id");
        return key == null || key.length == 0 ? null : key;
    }

    /** The inverse of {@link #encode}, or {@code null} if {@code s} is malformed. */
    static byte[] decode(String s) {
        return percentDecode(s, 0, s.length());
    }

    /** The raw bytes of parameter {@code name} of {@code uri}, or {@code null} if it is missing or malformed. */
    static byte[] paramOf(String uri, String name) {
        int at = valueAt(uri, name);
        return at < 0 ? null : percentDecode(uri, at, valueEnd(uri, at));
    }

    /** Where the (still encoded) value of the first parameter {@code name} of {@code uri} starts, or -1 if it has none. */
    private static int valueAt(String uri, String name) {
        int q = uri.indexOf('?');
        if (q < 0) return -1;
        String prefix = name + "=";
        int i = q + 1;
        while (i < uri.length()) {
            int end = valueEnd(uri, i);
            if (uri.startsWith(prefix, i)) return i + prefix.length();
            i = end + 1;
        }
        return -1;
    }

    /** Where the parameter that goes on at {@code from} ends: its {@code &}, or the end of {@code uri}. */
    private static int valueEnd(String uri, int from) {
        int amp = uri.indexOf('&', from);
        return amp < 0 ? uri.length() : amp;
    }

    private static byte[] percentDecode(String s, int from, int to) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(to - from);
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= to) return null;
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) return null;
                out.write(hi << 4 | lo);
                i += 2;
            } else if (c == '+') {
                out.write(' ');
            } else if (c < 0x80) {
                out.write(c);
            } else {
                return null;
            }
        }
        return out.toByteArray();
    }
}
