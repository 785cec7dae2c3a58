package dht.storage;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Access-pattern advice to the kernel for a table's mapping, through libc {@code madvise} called
 * with FFM. A fault on a mapped page otherwise reads the device's whole readahead window around it
 * (megabytes on some disks), so a cold point read would pull in far more than its block:
 * {@link #random} makes each fault read only its page. Readers that stream a table ask for the
 * range ahead of them with {@link #willNeed}, which reads it in the background whatever the
 * mapping's advice. Advice is only a hint: on a system without {@code madvise}, or if a call
 * fails, reads stay correct, and the failure is logged once.
 */
final class MappingAdvice {
    private static final Logger log = LoggerFactory.getLogger(MappingAdvice.class);
    /** Linux's values; other systems are not advised (see {@link #MADVISE}). */
    static final int MADV_RANDOM = 1;
    static final int MADV_WILLNEED = 3;
    private static final long PAGE = 4096;
    private static final MethodHandle MADVISE = find();
    private static final AtomicBoolean reported = new AtomicBoolean();

    private MappingAdvice() {}

    private static MethodHandle find() {
        if (!System.getProperty("os.name", "").startsWith("Linux")) return null;
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("madvise").map(a -> linker.downcallHandle(a, FunctionDescriptor.of(
                    ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT))).orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** Each fault in {@code seg} reads only its own page. False if not advised (empty, or not possible). */
    static boolean random(MemorySegment seg) {
        return advise(seg, 0, seg.byteSize(), MADV_RANDOM);
    }

    /** Starts reading {@code [offset, offset + length)} of {@code seg} in the background. */
    static boolean willNeed(MemorySegment seg, long offset, long length) {
        return advise(seg, offset, Math.min(length, seg.byteSize() - offset), MADV_WILLNEED);
    }

    /** Advises the pages covering the range; the start is rounded down to its page, as madvise requires. */
    static boolean advise(MemorySegment seg, long offset, long length, int advice) {
        if (length <= 0 || offset < 0 || seg.address() == 0) return false;
        if (MADVISE == null) {
            reportOnce("madvise is not available on " + System.getProperty("os.name"));
            return false;
        }
        long start = seg.address() + offset;
        long aligned = start & -PAGE;
        try {
            int rc = (int) MADVISE.invokeExact(MemorySegment.ofAddress(aligned), length + (start - aligned), advice);
            if (rc == 0) return true;
            reportOnce("madvise(" + advice + ") returned " + rc);
        } catch (Throwable e) {
            reportOnce("madvise(" + advice + ") failed: " + e);
        }
        return false;
    }

    private static void reportOnce(String why) {
        if (reported.compareAndSet(false, true)) {
            log.info("{}; tables are read with the kernel's default readahead (logged once)", why);
        }
    }
}
