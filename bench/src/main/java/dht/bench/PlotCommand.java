package dht.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code dht bench plot a.hgrm b.hgrm ...}: several runs on one latency-by-percentile plot. */
@Command(name = "plot", mixinStandardHelpOptions = true,
        description = "Plot latency by percentile (log-scaled 1/(1-percentile) axis) of one or more .hgrm files on one PNG.")
public final class PlotCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "FILE.hgrm", description = "Percentile distributions (this tool's, wrk2's or HdrHistogram's).")
    List<Path> files;

    @Option(names = {"-o", "--out"}, defaultValue = "latency.png", description = "PNG to write (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--title", defaultValue = "Latency by percentile", description = "Chart title.")
    String title;

    @Override
    public Integer call() throws Exception {
        List<HgrmFile> runs = new ArrayList<>();
        for (Path f : files) {
            try {
                runs.add(HgrmFile.read(f));
            } catch (java.io.IOException e) {
                System.err.println("bench plot: " + e.getMessage());
                return 2;
            }
        }
        PercentilePlot.write(runs, title, out);
        System.err.println("wrote " + out.toAbsolutePath());
        return 0;
    }
}
