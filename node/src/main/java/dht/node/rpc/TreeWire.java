package dht.node.rpc;

import dht.node.cluster.MerkleTree;
import dht.storage.Entry;
import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * The anti-entropy routes' requests and bodies (docs/wire-format.md, "Anti-entropy"), built and
 * read here only, so that both sides agree and a change to how internal requests are built
 * (signing, say) has one place to go.
 *
 * <p>A page's body is its entries in key order, each {@code u8 kind} (0 value, 1 tombstone, 2 value
 * with an expiry), {@code i64 timestamp}, {@code i32 key length}, the key, then for a value
 * {@code i32 value length} and the value, then for kind 2 {@code i64 expiry}; big-endian. A leaf
 * set is a bitmap of {@link MerkleTree#LEAVES} bits, leaf {@code i} at bit {@code i % 8} of byte
 * {@code i / 8}.
 */
final class TreeWire {
    static final int LEAF_SET_BYTES = MerkleTree.LEAVES / 8;
    private static final byte VALUE = 0;
    /** A value with an expiry (epoch milliseconds, after the value): TTL travels with the version. */
    private static final byte EXPIRING_VALUE = 2;
    private static final byte TOMBSTONE = 1;

    private TreeWire() {}

    static String treeUri(String requester, long version) {
        return InternalProtocol.TREE_PATH + "?peer=" + InternalProtocol.encode(requester.getBytes(StandardCharsets.UTF_8))
                + "&version=" + version;
    }

    static String pageUri(String requester, long version, byte[] start) {
        String uri = InternalProtocol.TREE_PAGE_PATH + "?peer="
                + InternalProtocol.encode(requester.getBytes(StandardCharsets.UTF_8)) + "&version=" + version;
        return start.length == 0 ? uri : uri + "&start=" + InternalProtocol.encode(start);
    }

    /** The asking node's URL from a tree route's URI, or null. */
    static String requester(String uri) {
        byte[] peer = InternalProtocol.paramOf(uri, "peer");
        return peer == null || peer.length == 0 ? null : new String(peer, StandardCharsets.UTF_8);
    }

    /**
     * The asking node's membership version from a tree route's URI: 0 when absent (a node of an
     * earlier build, taken as on this node's version), -1 when malformed.
     */
    static long version(String uri) {
        byte[] v = InternalProtocol.paramOf(uri, "version");
        if (v == null) return 0;
        try {
            long n = Long.parseLong(new String(v, StandardCharsets.UTF_8));
            return n > 0 ? n : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static byte[] encodeLeaves(BitSet leaves) {
        return Arrays.copyOf(leaves.toByteArray(), LEAF_SET_BYTES);
    }

    static BitSet decodeLeaves(byte[] body) {
        if (body.length != LEAF_SET_BYTES) {
            throw new IllegalArgumentException("a leaf set has " + LEAF_SET_BYTES + " bytes, got " + body.length);
        }
        return BitSet.valueOf(body);
    }

    static byte[] encodePage(List<Entry> entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Entry e : entries) {
            byte[] value = e.isTombstone() ? null : e.value();
            ByteBuffer head = ByteBuffer.allocate(13).order(ByteOrder.BIG_ENDIAN);
            boolean expiring = value != null && e.expiryWord() != 0;
            head.put(value == null ? TOMBSTONE : expiring ? EXPIRING_VALUE : VALUE).putLong(e.timestamp())
                    .putInt(e.key().length);
            out.writeBytes(head.array());
            out.writeBytes(e.key());
            if (value != null) {
                out.writeBytes(ByteBuffer.allocate(4).putInt(value.length).array());
                out.writeBytes(value);
                if (expiring) out.writeBytes(ByteBuffer.allocate(8).putLong(e.expiryWord()).array());
            }
        }
        return out.toByteArray();
    }

    /** The inverse of {@link #encodePage}; throws IllegalArgumentException on a malformed body. */
    static List<Entry> decodePage(byte[] body) {
        ByteBuffer b = ByteBuffer.wrap(body).order(ByteOrder.BIG_ENDIAN);
        List<Entry> out = new ArrayList<>();
        try {
            while (b.hasRemaining()) {
                byte kind = b.get();
                long timestamp = b.getLong();
                byte[] key = bytes(b);
                if (kind == TOMBSTONE) {
                    out.add(Entry.tombstone(key, timestamp));
                } else if (kind == VALUE || kind == EXPIRING_VALUE) {
                    byte[] value = bytes(b);
                    long expiry = kind == EXPIRING_VALUE ? b.getLong() : 0;
                    out.add(Entry.value(key, value, timestamp, expiry));
                } else {
                    throw new IllegalArgumentException("unknown entry kind " + kind);
                }
            }
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated tree page");
        }
        return out;
    }

    /** A length-prefixed run of bytes; the length is the sender's claim, checked before anything is allocated for it. */
    private static byte[] bytes(ByteBuffer b) {
        int len = b.getInt();
        if (len < 0 || len > b.remaining()) {
            throw new IllegalArgumentException("tree page: a length of " + len + " with " + b.remaining() + " bytes left");
        }
        byte[] out = new byte[len];
        b.get(out);
        return out;
    }
}
