package dht.storage;

import java.util.Locale;

/**
 * The codec a table's data blocks are written with ({@link StoreOptions#compression}). Each block
 * records its own codec, so tables written under different settings are read side by side, and a
 * compaction writes its output in the codec configured now. The {@link #id} is what a block stores:
 * never renumber one.
 */
public enum Compression {
    /** Blocks are the entries themselves, read in place from the mapping. */
    NONE(0, null),
    /** LZ4 (lz4-java): fast to decompress, the usual choice for blocks read at random. */
    LZ4(1, new Lz4Codec()),
    /** Zstandard level 3 (zstd-jni): smaller than LZ4, slower to read. */
    ZSTD(2, new ZstdCodec());

    /** The number a compressed block stores for its codec (docs/storage-format.md, "Sorted table"). */
    final int id;
    /** Null for {@link #NONE}. */
    final BlockCodec codec;

    Compression(int id, BlockCodec codec) {
        this.id = id;
        this.codec = codec;
    }

    /** The codec a block names, or null when {@code id} names none this build knows. */
    static Compression ofId(int id) {
        for (Compression c : values()) if (c.id == id) return c;
        return null;
    }

    /** {@code none}, {@code lz4} or {@code zstd}, in any case. */
    public static Compression parse(String name) {
        try {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("compression must be none, lz4 or zstd, got '" + name + "'");
        }
    }

    /** The name {@link #parse} takes. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
