package dht.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** One line describing the machine a report was measured on. */
final class Machine {
    private Machine() {
    }

    static String describe() {
        String cpu = "?";
        String mem = "?";
        String kernel = "?";
        String load = "?";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .findFirst().map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("?");
            mem = Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                    .findFirst().map(l -> Long.parseLong(l.replaceAll("\\D", "")) / 1024 / 1024 + " GiB").orElse("?");
            kernel = Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
            load = Files.readString(Path.of("/proc/loadavg")).trim().replaceAll("^(\\S+ \\S+ \\S+).*", "$1");
        } catch (IOException | RuntimeException e) {
            // not Linux: say what we know
        }
        return Runtime.getRuntime().availableProcessors() + " cores (" + cpu + "), " + mem + " RAM, Linux " + kernel
                + ", Java " + Runtime.version() + ", load average at start " + load
                + " (a shared, noisy VM: compare runs side by side)";
    }
}
