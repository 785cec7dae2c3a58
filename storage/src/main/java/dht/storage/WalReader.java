package dht.storage;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.BitSet;
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
 *     records follow one another to the end of the file (or the end itself; past where rule 1
 *     would resume, if it would, only lengths one byte away from the length field), then along a
 *     chain that may pass over a later damaged record as rule 1's may: its length field was the
 *     damage, and the record is replayed with the length its CRC proves;</li>
 * <li>else where the failed record's own length says it ends, if intact records follow one another
 *     from there to the end of the file (a byte flipped in a body or a CRC: the common case, since
 *     bodies are most of the bytes), passing over later records that fail alone (each with a
 *     length in range that fits, never two in a row, and followed by an intact record, the end, or
 *     a record a walk already proved: another flipped body, skipped in its turn); the failed record
 *     is skipped. If the first record there is itself skipped, or is a torn tail, the own end is
 *     weak: rule 0 then tries every candidate, and the own end is taken only if none proves;</li>
 * <li>else the first later offset from which intact records follow one another to the end (damage
 *     over more than one field: a sector of garbage).</li>
 * </ol>
 * "To the end" means to the exact end, or to a torn tail after at least one record (a record cut
 * short by the end, or only zeros: what a crash after the damage leaves), except for rules 1 and 2
 * past a record that itself runs past the end: that may be the tail a crash tore, with any bytes
 * inside it, so past it only the exact end counts. If no rule applies, the rest is a torn or
 * damaged tail and is dropped, as after a crash.
 *
 * <p>Why go on instead of stopping: a crash leaves at most a torn tail (nothing valid after it), but
 * a byte flipped in the middle of a log is damage, and the records after it were acknowledged writes
 * whose checksums still prove them; stopping would drop them all. Why both rules ask for a chain
 * to the end rather than one intact record: a value may itself contain the bytes of a log record (a
 * log stored as a value), and a lone match inside a damaged region could replay a write nobody made.
 * Nor is a chain always enough: records embedded in the failed record's own value can chain into the
 * real records after it, and a torn last record (a value cut by a crash) can end exactly where such
 * embedded records end. Rule 0 tells these apart by the failed record's own CRC whenever its length
 * field alone was damaged. What remains: damage over several fields of a record whose value embeds
 * log records, or a crash tearing such a value exactly where embedded records end; rule 2 may then
 * replay them. (Refusing rule 2 past a record that runs past the end would close the second case,
 * but drop every acknowledged write after a sector of garbage over a header whose length happens
 * to run past the end: about one such sector in sixteen.) Records of one log may be applied in any
 * order (versions compete by timestamp), so a skipped record does not change what the others mean.
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
        Marks reachEnd = new Marks(); // record starts a walk past damage proved lead to the end (rule 1)
        while (offset < size) {
            Entry e = recordAt(file, offset);
            if (e != null) {
                sink.accept(e);
                count++;
                offset += LogRecord.HEADER + file.get(INT, offset + 4);
                continue;
            }
            String problem = problemAt(file, offset);
            Resync resync = new Resync(file, offset, reachEnd);
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
            if (resync.gaveUp()) {
                // Bytes that look like records at offset after offset (a crafted value): the search
                // stopped at its budget rather than take time quadratic in the file's size.
                log.warn("log {}: DAMAGED: {} at offset {}; dropping the tail ({} bytes): the search for the next record "
                        + "gave up, too many look-alikes (the file will be kept as {}.corrupt)", path, problem, offset,
                        size - offset, path.getFileName());
                damaged = true;
            } else if (resync.sawRecord) {
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
     * The search for where replay resumes after the failed record at {@code failed} (rules 0, 1 and
     * 2 above).
     *
     * <p>Cost, which must stay linear in the file's size whatever the bytes: the scan for a chain
     * start moves upward only, and the record starts a walk passed through and found leading to a
     * break are remembered ({@link Chains#broken}, a bit per byte offset, never one object per
     * offset: a search over an 8 MiB value made eight million of them), so no record is walked
     * twice. A candidate record is checksummed only when where it claims to end looks like the end
     * of the file, a header or a torn tail, and the bytes checksummed are bounded by
     * {@link #crcBudget}: a value crafted to look like records at every offset could otherwise
     * make each one pay a CRC over a long claimed length. Rule 0's running CRC covers each byte
     * once.
     */
    private static final class Resync {
        private final MemorySegment file;
        private final long size;
        private final long failed;
        /** Where the failed record's body starts, and what its header says (CRC and length). */
        private final long bodyStart;
        private final int storedCrc;
        private final int storedLength;
        /**
         * The failed record's length is in range but runs past the end of the file: the tail a
         * crash tore, where any bytes may be a stored value's, or a damaged length. Past it a chain
         * counts for rules 1 and 2 only if it reaches the exact end of the file.
         */
        private final boolean runsPastEnd;
        /** The file holds only zeros from here on. */
        private final long zerosFrom;
        /** Chains that may end in a torn tail, and (unless the failed record runs past the end) those that may not. */
        private final Chains lenient = new Chains(true);
        private final Chains strict;
        /** Bytes the search may still checksum (candidate records of chains); past it, it gives up. */
        private long crcBudget;
        /** Whether any intact record was seen past the failed one. */
        boolean sawRecord;
        /** The failed record's body length as its CRC proves it (rule 0), or -1. */
        int repairedLength = -1;
        /** Shared by the resyncs of one file: absolute record starts {@link Chains#pastDamage} proved. */
        private final Marks reachEnd;
        /**
         * Rule 1's walk from the own end reached the end without an intact record right at the own
         * end (it skipped the record there, or that was a torn tail): the own end stays a place to
         * resume at if nothing better is proven, but says nothing about the length field.
         */
        private boolean weakOwnEnd;

        Resync(MemorySegment file, long failed, Marks reachEnd) {
            this.file = file;
            this.reachEnd = reachEnd;
            this.size = file.byteSize();
            this.failed = failed;
            this.bodyStart = failed + LogRecord.HEADER;
            boolean header = size - failed >= LogRecord.HEADER;
            this.storedCrc = header ? file.get(INT, failed) : 0;
            this.storedLength = header ? file.get(INT, failed + 4) : 0;
            this.crcTo = bodyStart;
            this.runsPastEnd = runsPastEnd(file, failed);
            long z = size;
            while (z > failed && file.get(ValueLayout.JAVA_BYTE, z - 1) == 0) z--;
            this.zerosFrom = z;
            this.strict = runsPastEnd ? new Chains(false) : lenient;
            this.crcBudget = 8 * (size - failed) + (1L << 30);
        }

        /** Where replay resumes, or -1; sets {@link #repairedLength} under rule 0. */
        long next() {
            if (size - failed < LogRecord.HEADER) return -1;
            long end = bodyStart + storedLength;
            // The own end counts for rule 1 at the end of the file, or where the zeros at the end
            // begin, too: else a flipped bit in the last record's value had the search replay
            // records embedded in it. (Not at any header that runs past the end: at a random offset
            // that is too weak a sign, and the records after the true end would be skipped.)
            long ownEnd = lengthInRange(storedLength) && end <= size
                    && (end == size || (end >= zerosFrom && strict.tornTailEnds) || reachEnd.get(end) || strict.from(end)
                    || strict.pastDamage(end, true)) ? end : -1;
            // Rule 0 looks at the first chain, not the one at the record's own end: a damaged length
            // may point at a later record (those between would be lost) or at records embedded in
            // its own value. When the own end chains, the length is most likely intact: past it only
            // a few ends are tried (candidate), so fewer chances of a false match. Not when the own
            // end is weak (no intact record right there): that is no sign the length is intact.
            long limit = ownEnd >= 0 && !weakOwnEnd ? ownEnd : size;
            long first = lenient.first(limit);
            long repaired = repair(first, limit);
            if (repaired >= 0) return repaired;
            // Rule 0 again along the first chain that may pass over a second, separate damage (its
            // candidates still need the CRC's proof): else a damaged length followed later by a
            // flipped body lost every intact record between the two.
            long past = lenient.firstPastDamage(limit);
            if (past >= 0 && past != first) {
                repaired = repair(past, limit);
                if (repaired >= 0) return repaired;
            }
            if (ownEnd >= 0) return ownEnd;
            return strict == lenient ? first : strict.first(size); // rule 2: the same search, unless only the exact end counts
        }

        /** Whether the search stopped for its checksum budget rather than for want of a boundary. */
        boolean gaveUp() {
            return crcBudget < 0;
        }

        /**
         * Rule 0: the end of the failed record if its CRC matches for a body reaching one of the
         * record starts of the chain from {@code chain}, the place that chain stops, or the end of
         * the file, as far as {@link #candidate} allows; -1 if none does. Chains to the end meet (the records after
         * the true end of the failed record are on all of them), so the true end is among these
         * whenever the length field alone was damaged; a false match needs a 32-bit CRC to match by
         * chance for one of the candidates. One running CRC over the body serves every candidate
         * ({@link Crc32cCombine}).
         */
        private long repair(long chain, long limit) {
            if (chain >= 0 && chain < crcTo) { // a second chain, starting below where the first one's CRC got to
                body.reset();
                crcTo = bodyStart;
            }
            long p = chain;
            while (p >= 0 && p < size) {
                if (p - bodyStart > LogRecord.MAX_BODY) return -1;
                if (candidate(p, limit) && repairsAt(p)) return p;
                int len = intactLength(file, p);
                if (len < 0) break;
                p += LogRecord.HEADER + len;
            }
            if (p >= 0 && p <= size && candidate(p, limit) && repairsAt(p)) return p;
            if (candidate(size, limit) && repairsAt(size)) return size;
            return -1;
        }

        /**
         * Up to {@code limit} every end is tried. Past it (where rule 1 would resume: its length is
         * then most likely intact) only ends whose length differs from the length field in one
         * byte: a damaged byte of the field that made it point at records inside the value (which
         * chain into the real ones) is still repaired, while a body flip does not pay a chance of
         * a false CRC match for every record after it.
         */
        private boolean candidate(long e, long limit) {
            if (e <= limit) return true;
            long diff = (e - bodyStart) ^ (storedLength & 0xFFFFFFFFL);
            return (diff & ~0xFFL) == 0 || (diff & ~0xFF00L) == 0 || (diff & ~0xFF0000L) == 0 || (diff & ~0xFF000000L) == 0;
        }

        /** The running CRC of the failed record's body, from its start to {@link #crcTo}. */
        private final CRC32C body = new CRC32C();
        private long crcTo;

        /** Whether the failed record's CRC matches for a body ending at {@code e} (candidates come in increasing order); sets {@link #repairedLength}. */
        private boolean repairsAt(long e) {
            long n = e - bodyStart;
            if (e < crcTo || n < LogRecord.BODY_FIXED || n > LogRecord.MAX_BODY) return false;
            body.update(file.asSlice(crcTo, e - crcTo).asByteBuffer());
            crcTo = e;
            if (!bodyShapeOk(file, failed, (int) n)) return false;
            if (Crc32cCombine.combine(lengthCrc((int) n), (int) body.getValue(), n) != storedCrc) return false;
            repairedLength = (int) n;
            return true;
        }

        /** The CRC-32C of a length field holding {@code n}. */
        private static int lengthCrc(int n) {
            CRC32C c = new CRC32C();
            for (int shift = 0; shift < 32; shift += 8) c.update(n >>> shift);
            return (int) c.getValue();
        }

        /** Chains of intact records to the end of the file, with or without a torn tail allowed to end them. */
        private final class Chains {
            private final boolean tornTailEnds;
            /** Record starts past the failed record that lead to a break. */
            private final Marks broken = new Marks();
            /** The same for walks that may pass over damage ({@link #pastDamage}). */
            private final Marks brokenPastDamage = new Marks();

            Chains(boolean tornTailEnds) {
                this.tornTailEnds = tornTailEnds;
            }

            /** The first offset in (failed, limit] from which a chain reaches the end ({@code limit} itself only if it does), or -1. */
            long first(long limit) {
                return first(limit, this::from);
            }

            /** The same for chains that may pass over a damaged record ({@link #pastDamage}); for rule 0's candidates. */
            long firstPastDamage(long limit) {
                return first(limit, p -> pastDamage(p, false));
            }

            private long first(long limit, java.util.function.LongPredicate reachesEnd) {
                for (long p = failed + 1; p < limit; p++) {
                    if (crcBudget < 0) return -1;
                    if (reachesEnd.test(p)) return p;
                }
                return limit < size && reachesEnd.test(limit) ? limit : -1;
            }

            /** Whether a torn tail (what a crash leaves) starts at {@code p}, where this kind of chain may end. */
            boolean tornTailAt(long p) {
                return tornTailEnds && (p >= zerosFrom || size - p < LogRecord.HEADER || runsPastEnd(file, p));
            }

            /** Whether intact records start at {@code p} and follow one another to the end (as above). */
            boolean from(long start) {
                long p = start;
                boolean walked = false;
                while (p < size) {
                    // a torn tail ends a chain of at least one record; it is no place to resume at itself
                    if (walked && tornTailAt(p)) return true;
                    if (broken.get(p - failed) || !plausible(p) || intactCharged(p) < 0) {
                        // Remember the records this walk passed through, and where it broke (not
                        // the scan's own start: the scan never comes back below it). Walked again
                        // by their lengths rather than kept in a list: one object per record of a
                        // long chain ran small heaps out.
                        if (walked) {
                            for (long q = start; q < p; q += LogRecord.HEADER + file.get(INT, q + 4)) broken.set(q - failed);
                            broken.set(p - failed);
                        }
                        return false;
                    }
                    walked = true;
                    sawRecord = true;
                    p += LogRecord.HEADER + file.get(INT, p + 4);
                }
                return true;
            }

            /**
             * Rule 1's chain may also pass over later records that fail on their own (a second
             * flipped body byte): each such record must have a length in range that fits in the
             * file, come after an intact record (or first, from rule 1's own end), and be followed
             * by an intact record, the end of the file, or (where allowed) a torn tail.
             * Without this, two separate flips lost every intact record between them, which the
             * chain to the end had to cross. Nothing is replayed from it: the records it skips fail
             * again when replay reaches them, and are resynced past on their own, each finding
             * its own end among the starts this walk marks in {@link #reachEnd}, so that a log
             * with many such records is walked once, not once per record.
             *
             * @param remember whether {@code start} is rule 1's own end, where the first record may be
             *                 skipped too (then the end is only {@link #weakOwnEnd}), and whose success
             *                 from an intact first record marks its record starts in {@link #reachEnd};
             *                 not a scan's start, which may lie among records embedded in a value
             */
            boolean pastDamage(long start, boolean remember) {
                long p = start;
                boolean intactBefore = remember; // a record may be skipped only after an intact one, or first from the own end
                boolean skippedLast = false;
                boolean firstIntact = false;
                while (p < size) {
                    // Marks hold intact record starts only: past one of them a walk goes on the same
                    // way whatever came before it, so its outcome is known.
                    if (reachEnd.get(p)) {
                        firstIntact |= p == start;
                        break;
                    }
                    if (brokenPastDamage.get(p - failed)) return brokenAt(start, p);
                    if (intactBefore && tornTailAt(p)) break;
                    if (size - p < LogRecord.HEADER) return brokenAt(start, p);
                    int len = file.get(INT, p + 4);
                    boolean fits = lengthInRange(len) && size - p - LogRecord.HEADER >= len;
                    // After the first record the walk follows lengths it has proven, so a record need
                    // only be well formed itself: a damaged record after it is for the next step to judge.
                    boolean candidate = p == start && !remember ? plausible(p) // a scan's start: the cheap filter first
                            : fits && bodyShapeOk(file, p, len);
                    if (candidate && intactCharged(p) >= 0) {
                        firstIntact |= p == start;
                        intactBefore = true;
                        skippedLast = false;
                        sawRecord = true;
                    } else if (crcBudget >= 0 && intactBefore && !skippedLast && fits) {
                        // Skipped by its length alone (the damage may be in its type or key length):
                        // the intact record that must come next anchors it.
                        skippedLast = true;
                    } else {
                        return brokenAt(start, p);
                    }
                    p += LogRecord.HEADER + len;
                }
                if (remember && firstIntact) {
                    markIntact(start, p, reachEnd, 0);
                } else if (remember) {
                    weakOwnEnd = true; // and nothing shared: the own end itself is in doubt
                }
                return true;
            }

            /** A walk from {@code start} broke at {@code p}: its intact record starts lead there too. */
            private boolean brokenAt(long start, long p) {
                markIntact(start, p, brokenPastDamage, failed);
                return false;
            }

            /** Marks (relative to {@code base}) the starts of the intact records from {@code start} to {@code end}, walked by their lengths. */
            private void markIntact(long start, long end, Marks marks, long base) {
                for (long q = start; q < end; q += LogRecord.HEADER + file.get(INT, q + 4)) {
                    if (intactLength(file, q) >= 0) marks.set(q - base);
                }
            }

            /**
             * Whether the record at {@code p} could be one, by its header and where it claims to end:
             * the end of the file, the start of something that looks like a record, or (where a torn
             * tail may end a chain) a torn tail. Cheap tests before the CRC.
             */
            private boolean plausible(long p) {
                if (size - p < LogRecord.HEADER) return false;
                int len = file.get(INT, p + 4);
                if (!lengthInRange(len) || size - p - LogRecord.HEADER < len || !bodyShapeOk(file, p, len)) return false;
                long e = p + LogRecord.HEADER + len;
                if (e == size || tornTailAt(e)) return true;
                if (size - e < LogRecord.HEADER) return false;
                int next = file.get(INT, e + 4);
                if (!lengthInRange(next)) return false;
                // too short to show its body: at most a torn record, which only a lenient chain may end in
                return size - e - LogRecord.HEADER < LogRecord.BODY_FIXED ? tornTailEnds : bodyShapeOk(file, e, next);
            }
        }

        /** {@link #intactLength} for a record already found {@link Chains#plausible}, its CRC charged to the budget. */
        private int intactCharged(long p) {
            int len = file.get(INT, p + 4);
            crcBudget -= 4L + len;
            if (crcBudget < 0) return -1;
            return crcMatches(file, p, len) ? len : -1;
        }
    }

    /** A set of file offsets (relative to a failed record, or absolute), a bit each, for files of any size. */
    private static final class Marks {
        private static final int PART_BITS = 30;
        private final java.util.Map<Integer, BitSet> parts = new java.util.HashMap<>();

        boolean get(long i) {
            BitSet b = parts.get((int) (i >>> PART_BITS));
            return b != null && b.get((int) (i & ((1L << PART_BITS) - 1)));
        }

        void set(long i) {
            parts.computeIfAbsent((int) (i >>> PART_BITS), k -> new BitSet()).set((int) (i & ((1L << PART_BITS) - 1)));
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
        return crcMatches(file, offset, len) ? len : -1;
    }

    /** Whether the CRC stored at {@code offset} matches its length field and a body of {@code len} bytes. */
    private static boolean crcMatches(MemorySegment file, long offset, int len) {
        CRC32C crc = new CRC32C();
        crc.update(file.asSlice(offset + 4, 4L + len).asByteBuffer());
        return (int) crc.getValue() == file.get(INT, offset);
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
