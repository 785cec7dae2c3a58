package dht.node.http;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

/**
 * What a byte array takes of the heap, for budgets that must hold on a small one. Under G1 an array
 * of half a region or more is humongous: it gets whole regions to itself, so a 1 MiB value on a
 * 128 MB heap (1 MiB regions) takes 2 MiB. Counted at their length, such answers would let a budget
 * of a quarter of the heap fill all of it (docs/http-server.md, "The answers being built").
 */
final class HeapCost {
    /** G1's region size, or 0 for a collector without humongous regions. */
    private static final long REGION = regionSize();
    private static final int ARRAY_HEADER = 16;

    private HeapCost() {
    }

    /** The heap an array of {@code n} bytes takes, rounded up to whole regions when it is humongous. */
    static long ofArray(long n) {
        long size = n + ARRAY_HEADER;
        if (REGION == 0 || size < REGION / 2) return n;
        return (size + REGION - 1) / REGION * REGION;
    }

    private static long regionSize() {
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (vm == null || !Boolean.parseBoolean(vm.getVMOption("UseG1GC").getValue())) return 0;
            return Long.parseLong(vm.getVMOption("G1HeapRegionSize").getValue());
        } catch (RuntimeException e) { // not HotSpot: count lengths
            return 0;
        }
    }
}
