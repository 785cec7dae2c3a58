package dht.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The set of live files, replaced atomically: written whole to {@code MANIFEST.tmp}, fsynced,
 * renamed over {@code MANIFEST}, directory fsynced. A crash at any point leaves either the old or
 * the new manifest. Layout (docs/storage-format.md, "Manifest"), little-endian:
 * {@code magic u64 | version u32 | next_file u64 | log_number u64 | count u32 | table u64[count] | crc32c u32}.
 *
 * @param nextFile  the next unused file number
 * @param logNumber logs numbered {@code >= logNumber} hold writes not yet in any table
 * @param tables    numbers of the live tables
 */
record Manifest(long nextFile, long logNumber, List<Long> tables) {
    static final String NAME = "MANIFEST";
    static final long MAGIC = 0x314E_414D_5448_4444L; // "DDHTMAN1" read little-endian
    /**
     * 2: the logs it names are framed in blocks ({@link LogFormat}). Version 1 directories hold
     * logs and tables of pre-release formats, which are not read: refused before anything is touched.
     */
    static final int VERSION = 2;

    static Manifest read(StorageFiles files, Path dir) throws IOException {
        Path p = dir.resolve(NAME);
        byte[] b;
        try (InputStream in = files.openRead(p)) {
            b = in.readAllBytes();
        }
        if (b.length < 36) throw new CorruptionException(p, 0, "manifest too short (" + b.length + " bytes)");
        if (Bytes.getLong(b, 0) != MAGIC) throw new CorruptionException(p, 0, "bad manifest magic");
        if (Bytes.crc(b, 0, b.length - 4) != Bytes.getInt(b, b.length - 4)) {
            throw new CorruptionException(p, b.length - 4, "manifest checksum mismatch");
        }
        int version = Bytes.getInt(b, 8);
        if (version != VERSION) {
            // An intact manifest of another format: not damage, and its logs must not be read as ours.
            throw new IOException(p + " has manifest version " + version + "; this build reads only version " + VERSION
                    + (version > VERSION ? " (written by a newer dht: run that one)"
                    : " (a pre-release data directory, whose logs and tables are no longer read: recreate it)"));
        }
        long next = Bytes.getLong(b, 12);
        long logNumber = Bytes.getLong(b, 20);
        int n = Bytes.getInt(b, 28);
        if (n < 0 || 32 + 8L * n + 4 != b.length) throw new CorruptionException(p, 28, "bad table count " + n);
        List<Long> tables = new ArrayList<>(n);
        for (int i = 0; i < n; i++) tables.add(Bytes.getLong(b, 32 + 8 * i));
        return new Manifest(next, logNumber, List.copyOf(tables));
    }

    void write(StorageFiles files, Path dir) throws IOException {
        byte[] b = new byte[32 + 8 * tables.size() + 4];
        Bytes.putLong(b, 0, MAGIC);
        Bytes.putInt(b, 8, VERSION);
        Bytes.putLong(b, 12, nextFile);
        Bytes.putLong(b, 20, logNumber);
        Bytes.putInt(b, 28, tables.size());
        for (int i = 0; i < tables.size(); i++) Bytes.putLong(b, 32 + 8 * i, tables.get(i));
        Bytes.putInt(b, b.length - 4, Bytes.crc(b, 0, b.length - 4));
        Path tmp = dir.resolve(NAME + ".tmp");
        try (StorageFiles.WritableFile f = files.create(tmp)) {
            f.write(ByteBuffer.wrap(b));
            f.sync();
        }
        files.rename(tmp, dir.resolve(NAME));
        files.syncDirectory(dir);
    }
}
