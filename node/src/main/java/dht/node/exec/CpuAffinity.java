package dht.node.exec;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The CPUs a thread may run on, through Linux's {@code sched_getaffinity} and
 * {@code sched_setaffinity} (called with FFM; pid 0 is the calling thread). Where they are missing
 * (not Linux) nothing is pinned: {@link #allowedCpus()} is empty and {@link #pinCurrentThread} false.
 */
public final class CpuAffinity {
    /** A {@code cpu_set_t}: 1024 bits, as glibc defines it. */
    private static final long MASK_BYTES = 128;
    private static final MethodHandle GET = find("sched_getaffinity");
    private static final MethodHandle SET = find("sched_setaffinity");

    private CpuAffinity() {
    }

    private static MethodHandle find(String name) {
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find(name)
                    .map(a -> linker.downcallHandle(a, FunctionDescriptor.of(ValueLayout.JAVA_INT,
                            ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS)))
                    .orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null; // no native linker for this platform
        }
    }

    /** The CPUs the calling thread may run on, in ascending order; empty if that cannot be known. */
    public static List<Integer> allowedCpus() {
        List<Integer> cpus = new ArrayList<>();
        if (GET == null) return cpus;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            if ((int) GET.invokeExact(0, MASK_BYTES, mask) != 0) return cpus;
            for (int word = 0; word < MASK_BYTES / 8; word++) {
                long bits = mask.getAtIndex(ValueLayout.JAVA_LONG, word);
                for (int b = 0; b < 64; b++) {
                    if ((bits & (1L << b)) != 0) cpus.add(word * 64 + b);
                }
            }
            return cpus;
        } catch (Throwable e) {
            return List.of();
        }
    }

    /** Lets the calling thread run on {@code cpu} alone; false if the system refused (or has no such call). */
    public static boolean pinCurrentThread(int cpu) {
        if (SET == null || cpu < 0 || cpu >= MASK_BYTES * 8) return false;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES, 8);
            mask.setAtIndex(ValueLayout.JAVA_LONG, cpu / 64, 1L << (cpu % 64));
            return (int) SET.invokeExact(0, MASK_BYTES, mask) == 0;
        } catch (Throwable e) {
            return false;
        }
    }
}
