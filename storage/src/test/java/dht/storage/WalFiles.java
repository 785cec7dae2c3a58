package dht.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/** Logs written and read for tests: through the real writer and reader, and a reader of the format's own, from the doc. */
final class WalFiles {
    private WalFiles() {}

    /**
     * Writes {@code entries} to a new log at {@code log}, one append each (as many group commits);
     * returns where each record's first fragment starts, then the file's size.
     */
    static long[] write(Path log, List<Entry> entries) throws IOException {
        long[] starts = new long[entries.size() + 1];
        try (WalWriter w = new WalWriter(1, log, NioStorageFiles.INSTANCE.create(log))) {
            for (int i = 0; i < entries.size(); i++) {
                long at = w.bytes();
                int room = LogFormat.BLOCK - (int) (at % LogFormat.BLOCK);
                starts[i] = room < LogFormat.HEADER ? at + room : at;
                Entry e = entries.get(i);
                w.append(List.of(e));
            }
            starts[entries.size()] = w.bytes();
        }
        return starts;
    }

    /** Writes {@code entries} to a new log in one append (one group commit). */
    static void writeBatch(Path log, List<Entry> entries) throws IOException {
        try (WalWriter w = new WalWriter(1, log, NioStorageFiles.INSTANCE.create(log))) {
            w.append(entries);
        }
    }

    record Replayed(List<Entry> entries, WalReader.Outcome outcome) {
        List<String> keys() {
            return entries.stream().map(e -> new String(e.key(), java.nio.charset.StandardCharsets.UTF_8)).toList();
        }
    }

    static Replayed replay(Path log) throws IOException {
        List<Entry> out = new ArrayList<>();
        WalReader.Outcome o = WalReader.replay(NioStorageFiles.INSTANCE, log, out::add);
        return new Replayed(out, o);
    }

    record Fragment(long offset, byte type, int length, boolean crcOk) {
    }

    /**
     * The fragments of a whole, undamaged log, read as docs/storage-format.md describes them:
     * asserts block tails shorter than a header are zeros.
     */
    static List<Fragment> fragments(Path log) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(log)).order(ByteOrder.LITTLE_ENDIAN);
        List<Fragment> out = new ArrayList<>();
        int p = 0;
        while (p < b.limit()) {
            int room = 32768 - p % 32768;
            if (room < 7) {
                for (int i = 0; i < room && p + i < b.limit(); i++) {
                    if (b.get(p + i) != 0) throw new AssertionError("block tail byte at " + (p + i) + " is not zero");
                }
                p += room;
                continue;
            }
            int crc = b.getInt(p);
            int len = b.getShort(p + 4) & 0xFFFF;
            byte type = b.get(p + 6);
            if (len > room - 7) throw new AssertionError("fragment at " + p + " crosses its block");
            CRC32C c = new CRC32C();
            c.update(b.array(), p + 6, len + 1);
            out.add(new Fragment(p, type, len, (int) c.getValue() == crc));
            p += 7 + len;
        }
        return out;
    }
}
