package dht.storage;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays one log file, keeping every record it can prove intact. A record that fails (cut short by
 * the end of the file, a length out of range, a CRC mismatch, a malformed body) is looked at again,
 * and replay goes on from the next record boundary it can prove:
 * <ol start="0">
 * <li>where the failed record ends if its CRC matches with another length, one at which intact
 *     records follow one another to the end of the file (or the end itself): its length field was
 *     the damage, and the record is replayed with the length its CRC proves;</li>
 * <li>else where the failed record's own length says it ends, if intact records follow one another
 *     from there to the end of the file (a byte flipped in a body or a CRC: the common case, since
 *     bodies are most of the bytes); the failed record is skipped;</li>
 * <li>else, unless the failed record runs past the end of the file, the first later offset from which
 *     intact records follow one another to the end (damage over more than one field: a lost sector).</li>
 * </ol>
 * "To the end" means to the exact end, or to a torn tail after at least one record (a record cut
 * short by the end, or only zeros: what a crash after the damage leaves). If no rule applies, the
 * rest is a torn or damaged tail and is dropped, as after a crash.
 *
 * <p>Why go on instead of stopping: a crash leaves at most a torn tail (nothing valid after it), but
 * a byte flipped in the middle of a log is damage, and the records after it were acknowledged writes
 * whose checksums still prove them; stopping would drop them all. Why both rules ask for a chain
 * to the end rather than one intact record: a value may itself contain the bytes of a log record (a
 * log stored as a value), and a lone match inside a damaged region could replay a write nobody made.
 * Nor is a chain always enough: records embedded in the failed record's own value can chain into the
 * real records after it, and a torn last record (a value cut by a crash) can end exactly where such
 * embedded records end. Rule 0 tells these apart by the failed record's own CRC (a single damaged
 * field, the common case, is then placed exactly), and rule 2 is not used past a record that runs
 * past the end, where a crash's tear is far likelier than a damaged length. What remains is damage
 * over several fields of a record whose value embeds log records: rule 2 may then replay them.
 * Records of one log may be applied in any order (versions compete by timestamp), so a skipped record does not change what the others mean.
 *
 * <p>The file is mapped rather than streamed, so that the search can go back over bytes a failed
 * record claimed.
 */
final class WalReader {
    private static final Logger log = LoggerFactory.getLogger(WalReader.class);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * @param records      records replayed
     * @param skippedBytes bytes that were not part of an intact record (damage, or a torn tail)
     * @param damaged      true when intact records followed a failed one: the file was damaged, not
     *                     merely cut short by a crash, and should be kept for inspection
     */
    record Outcome(int records, long skippedBytes, boolean damaged) {
    }

    private WalReader() {}

    static Outcome replay(StorageFiles files, Path path, Consumer<Entry> sink) throws IOException {
        Outcome o;
        try (Arena arena = Arena.ofConfined()) {
            o = replay(files.map(path, arena), path, sink);
        } catch (InternalError e) {
            // how a read error of a mapped page (a bad sector: damage too) surfaces
            throw new IOException("log " + path + ": cannot be read: " + e.getMessage(), e);
        }
        log.info("log {}: replayed {} records{}", path, o.records(), o.skippedBytes() == 0 ? "" : ", skipped " + o.skippedBytes() + " bytes");
        return o;
    }

    private static Outcome replay(MemorySegment file, Path path, Consumer<Entry> sink) {
        int count = 0;
        long skipped = 0;
        boolean damaged = false;
        long size = file.byteSize();
        long offset = 0;
        while (offset < size) {
            Entry e = recordAt(file, offset);
            if (e != null) {
                sink.accept(e);
                count++;
                offset += LogRecord.HEADER + file.get(INT, offset + 4);
                continue;
            }
            String problem = problemAt(file, offset);
            Resync resync = new Resync(file, offset);
            long next = resync.next();
            if (next >= 0 && resync.repairedLength >= 0) {
                log.warn("log {}: DAMAGED: {} at offset {}: its length field reads {}, but its checksum proves a body of "
                        + "{} bytes; replayed it, going on at offset {} (the file will be kept as {}.corrupt)", path,
                        problem, offset, file.get(INT, offset + 4), resync.repairedLength, next, path.getFileName());
                sink.accept(decode(file, offset, resync.repairedLength));
                count++;
                damaged = true;
                offset = next;
                continue;
            }
            if (next >= 0) {
                log.warn("log {}: DAMAGED: {} at offset {}; skipped {} bytes to the next intact record at offset {} "
                        + "(the file will be kept as {}.corrupt)", path, problem, offset, next - offset, next, path.getFileName());
                damaged = true;
                skipped += next - offset;
                offset = next;
                continue;
            }
            if (resync.sawRecord) {
                // Intact records lie past a record that runs past the end, and its CRC proves no
                // other length: a stored value torn by a crash, or a length damaged with more.
                // Dropped, since replaying one could invent a write; the file is kept for a person
                // to judge.
                log.warn("log {}: DAMAGED: {} at offset {}; dropping the tail ({} bytes): it holds intact records that "
                        + "cannot be placed for certain (the file will be kept as {}.corrupt)", path, problem, offset,
                        size - offset, path.getFileName());
                damaged = true;
            } else {
                log.warn("log {}: {} at offset {}; dropping the tail ({} bytes, no intact record after it)",
                        path, problem, offset, size - offset);
            }
            skipped += size - offset;
            break;
        }
        return new Outcome(count, skipped, damaged);
    }

    /**
     * The search for where replay resumes after the failed record at {@code failed} (rules 1 and 2
     * above). Record starts already shown to lead nowhere are remembered, and every walk adds those
     * it passed through, so that trying every offset walks each record once: linear, not quadratic.
     */
    private static final class Resync {
        private final MemorySegment file;
        private final long size;
        private final long failed;
        /**
         * The failed record's length is in range but runs past the end of the file: the tail a
         * crash tore, far likelier than a damaged length, and inside it any bytes may be a stored
         * value. Only rule 0 resumes past it.
         */
        private final boolean runsPastEnd;
        /** The file holds only zeros from here on. */
        private final long zerosFrom;
        private final Set<Long> broken = new HashSet<>();
        /** Whether any intact record was seen past the failed one. */
        boolean sawRecord;
        /** The failed record's body length as its CRC proves it (rule 0), or -1. */
        int repairedLength = -1;

        Resync(MemorySegment file, long failed) {
            this.file = file;
            this.size = file.byteSize();
            this.failed = failed;
            this.runsPastEnd = runsPastEnd(file, failed);
            long z = size;
            while (z > failed && file.get(ValueLayout.JAVA_BYTE, z - 1) == 0) z--;
            this.zerosFrom = z;
        }

        /** Where replay resumes, or -1; sets {@link #repairedLength} under rule 0. */
        long next() {
            if (size - failed < LogRecord.HEADER) return -1;
            // The first chain, not the one from the record's own end: a damaged length may point
            // past the true end at a later record, and the records between would be lost.
            long first = firstChain();
            long repaired = repair(first);
            if (repaired >= 0) return repaired;
            int len = file.get(INT, failed + 4);
            long end = failed + LogRecord.HEADER + len;
            if (lengthInRange(len) && end < size && chains(end)) return end;
            return runsPastEnd ? -1 : first;
        }

        /** The first offset past the failed record's start from which intact records reach the end, or -1. */
        private long firstChain() {
            for (long p = failed + 1; p < size; p++) {
                if (chains(p)) return p;
            }
            return -1;
        }

        /**
         * Rule 0: the end of the failed record if its CRC matches for a body reaching one of the
         * record starts of the first chain, from {@code chain} (which reaches the end of the file), the
         * place that chain stops, or the end of the file; -1 if none does. Two chains to the end
         * meet (the records after the true end of the failed record are on both), so the true end
         * is among these whenever the length field alone was damaged; a false match needs a 32-bit
         * CRC to match by chance. One running CRC over the body serves every candidate
         * ({@link Crc32cCombine}).
         */
        private long repair(long chain) {
            List<Long> ends = new ArrayList<>();
            for (long p = chain; p >= 0 && p < size; ) {
                ends.add(p);
                int len = intactLength(file, p);
                if (len < 0) break;
                p += LogRecord.HEADER + len;
            }
            ends.add(size);
            int stored = file.get(INT, failed);
            long bodyStart = failed + LogRecord.HEADER;
            CRC32C body = new CRC32C();
            long crcTo = bodyStart;
            for (long e : ends) {
                long n = e - bodyStart;
                if (e < crcTo || n < LogRecord.BODY_FIXED) continue;
                if (n > LogRecord.MAX_BODY) break;
                body.update(file.asSlice(crcTo, e - crcTo).asByteBuffer());
                crcTo = e;
                if (!bodyShapeOk(file, failed, (int) n)) continue;
                if (Crc32cCombine.combine(lengthCrc((int) n), (int) body.getValue(), n) == stored) {
                    repairedLength = (int) n;
                    return e;
                }
            }
            return -1;
        }

        /** The CRC-32C of a length field holding {@code n}. */
        private static int lengthCrc(int n) {
            CRC32C c = new CRC32C();
            for (int shift = 0; shift < 32; shift += 8) c.update(n >>> shift);
            return (int) c.getValue();
        }

        /** Whether intact records start at {@code p} and follow one another to the end (as above). */
        private boolean chains(long p) {
            List<Long> walked = new ArrayList<>();
            while (p < size) {
                // a torn tail ends a chain of at least one record; it is no place to resume at itself
                if (!walked.isEmpty() && (p >= zerosFrom || size - p < LogRecord.HEADER || runsPastEnd(file, p))) {
                    return true;
                }
                if (broken.contains(p) || recordAt(file, p) == null) {
                    broken.addAll(walked);
                    broken.add(p);
                    return false;
                }
                walked.add(p);
                sawRecord = true;
                p += LogRecord.HEADER + file.get(INT, p + 4);
            }
            return true;
        }
    }

    private static boolean lengthInRange(int len) {
        return len >= LogRecord.BODY_FIXED && len <= LogRecord.MAX_BODY;
    }

    /** A header at {@code p} whose length is in range but runs past the end of the file. */
    private static boolean runsPastEnd(MemorySegment file, long p) {
        long size = file.byteSize();
        if (size - p < LogRecord.HEADER) return false;
        int len = file.get(INT, p + 4);
        return lengthInRange(len) && size - p - LogRecord.HEADER < len;
    }

    /** The entry of the intact record starting at {@code offset}, or null if there is none. */
    private static Entry recordAt(MemorySegment file, long offset) {
        int len = intactLength(file, offset);
        return len < 0 ? null : decode(file, offset, len);
    }

    /** The entry of the record at {@code offset} with a body of {@code len} bytes, already proven by its CRC. */
    private static Entry decode(MemorySegment file, long offset, int len) {
        byte[] body = new byte[len];
        MemorySegment.copy(file, ValueLayout.JAVA_BYTE, offset + LogRecord.HEADER, body, 0, len);
        return LogRecord.decodeBody(body, len);
    }

    /** The body length of a whole record at {@code offset} whose CRC matches, or -1. */
    private static int intactLength(MemorySegment file, long offset) {
        long size = file.byteSize();
        if (size - offset < LogRecord.HEADER) return -1;
        int len = file.get(INT, offset + 4);
        if (!lengthInRange(len) || size - offset - LogRecord.HEADER < len) return -1;
        // What a body must look like, checked before the CRC, so that a search over random bytes
        // rarely pays for a checksum over a large claimed length.
        if (!bodyShapeOk(file, offset, len)) return -1;
        CRC32C crc = new CRC32C();
        crc.update(file.asSlice(offset + 4, 4L + len).asByteBuffer());
        return (int) crc.getValue() == file.get(INT, offset) ? len : -1;
    }

    /** Whether the record at {@code offset}, given a body of {@code len >= BODY_FIXED} bytes, has a known type and a key that fits. */
    private static boolean bodyShapeOk(MemorySegment file, long offset, int len) {
        byte type = file.get(ValueLayout.JAVA_BYTE, offset + LogRecord.HEADER);
        int keyLength = file.get(INT, offset + LogRecord.HEADER + 17);
        return (type == LogRecord.PUT || type == LogRecord.DELETE) && keyLength >= 0 && keyLength <= len - LogRecord.BODY_FIXED
                && (type != LogRecord.DELETE || keyLength == len - LogRecord.BODY_FIXED);
    }

    /** Why no intact record starts at {@code offset}, for the log line. */
    private static String problemAt(MemorySegment file, long offset) {
        long left = file.byteSize() - offset;
        if (left < LogRecord.HEADER) return "torn record header (" + left + " of " + LogRecord.HEADER + " bytes)";
        int len = file.get(INT, offset + 4);
        if (!lengthInRange(len)) return "bad record length " + len;
        if (left - LogRecord.HEADER < len) return "torn record (" + (left - LogRecord.HEADER) + " of " + len + " body bytes)";
        if (intactLength(file, offset) < 0) return "checksum mismatch";
        return "malformed record";
    }
}
