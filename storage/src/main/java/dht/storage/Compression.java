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
    NONE(0),
    /** LZ4 (lz4-java): fast to decompress, the usual choice for blocks read at random. */
    LZ4(1),
    /** Zstandard level 3 (zstd-jni): smaller than LZ4, slower to read. */
    ZSTD(2);

    /** The number a compressed block stores for its codec (docs/storage-format.md, "Sorted table"). */
    final int id;

    Compression(int id) {
        this.id = id;
    }

    /**
     * The codec, null for {@link #NONE}. Made on first use, so that a store that never meets a
     * block of a codec never loads its native library (lz4-java leaves a copy of its library in
     * the temporary directory of each process that loads it).
     */
    BlockCodec codec() {
        return switch (this) {
            case NONE -> null;
            case LZ4 -> Lz4.CODEC;
            case ZSTD -> Zstd.CODEC;
        };
    }

    private static final class Lz4 {
        static final BlockCodec CODEC = new Lz4Codec();
    }

    private static final class Zstd {
        static final BlockCodec CODEC = new ZstdCodec();
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
