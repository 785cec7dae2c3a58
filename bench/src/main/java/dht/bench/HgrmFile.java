package dht.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the percentile rows of an HdrHistogram .hgrm file ("Value Percentile TotalCount
 * 1/(1-Percentile)"), as written by outputPercentileDistribution, wrk2 or this tool. Values are
 * in the unit the file was written in (milliseconds here and in wrk2).
 */
public record HgrmFile(String name, List<double[]> rows) {

    /** Each row: {value, percentile (0..1)}. */
    public static HgrmFile read(Path file) throws IOException {
        List<double[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            String t = line.trim();
            if (t.isEmpty() || t.startsWith("#") || t.startsWith("Value")) {
                continue;
            }
            String[] f = t.split("\\s+");
            if (f.length < 3) {
                continue;
            }
            try {
                double value = Double.parseDouble(f[0]);
                double pct = Double.parseDouble(f[1]);
                rows.add(new double[] {value, pct});
            } catch (NumberFormatException e) {
                // a header or footer line in another tool's dialect: not a data row
            }
        }
        if (rows.isEmpty()) {
            throw new IOException("no percentile rows in " + file);
        }
        String name = file.getFileName().toString().replaceAll("\\.hgrm$", "");
        if (name.equals("latency") && file.toAbsolutePath().getParent() != null) {
            name = file.toAbsolutePath().getParent().getFileName().toString(); // a run directory names the run
        }
        return new HgrmFile(name, rows);
    }
}
