package dht.storage;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The CPU priority a store's flush and compaction threads run at, relative to the threads that
 * serve requests. A compaction takes a core flat out for a fraction of a second; on a machine with
 * few cores, threads woken to serve a request then wait behind it for a time slice, and a chain of
 * such hand-offs (a client's request, the event loop, a storage thread, the answer) turns into a
 * stall of the whole request stream. Set on Linux through {@code setpriority} or
 * {@code sched_setscheduler}, called with FFM on the thread itself (pid 0 is the calling thread, and
 * on Linux both are per-thread attributes). Elsewhere, or if the system refuses, the thread keeps
 * the priority it has: {@link #applyToCurrentThread} says whether it changed.
 */
public enum BackgroundPriority {
    /** As every other thread of the process. */
    NORMAL,
    /**
     * Nice 19: the lowest share under contention (about 1.5% of a core against one busy thread of
     * nice 0), and a woken nice-0 thread takes the CPU from it at once.
     */
    LOW,
    /**
     * {@code SCHED_IDLE}: runs only on a CPU nothing else wants, but is never starved entirely (the
     * kernel still gives it a sliver, about a fifth of {@link #LOW}'s share).
     */
    IDLE;

    private static final int PRIO_PROCESS = 0;
    private static final int SCHED_IDLE = 5;
    private static final int LOWEST_NICE = 19;
    private static final MethodHandle SET_PRIORITY = find("setpriority", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle SET_SCHEDULER = find("sched_setscheduler", FunctionDescriptor.of(
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));

    private static MethodHandle find(String name, FunctionDescriptor signature) {
        if (!System.getProperty("os.name", "").startsWith("Linux")) return null; // the constants above are Linux's
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find(name).map(a -> linker.downcallHandle(a, signature)).orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null; // no native linker for this platform
        }
    }

    /** Gives the calling thread this priority; false if it could not (then it keeps the one it had). */
    public boolean applyToCurrentThread() {
        try {
            return switch (this) {
                case NORMAL -> true;
                case LOW -> SET_PRIORITY != null && (int) SET_PRIORITY.invokeExact(PRIO_PROCESS, 0, LOWEST_NICE) == 0;
                case IDLE -> {
                    if (SET_SCHEDULER == null) yield false;
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment param = arena.allocate(ValueLayout.JAVA_INT); // struct sched_param, priority 0
                        yield (int) SET_SCHEDULER.invokeExact(0, SCHED_IDLE, param) == 0;
                    }
                }
            };
        } catch (Throwable e) {
            return false;
        }
    }
}
