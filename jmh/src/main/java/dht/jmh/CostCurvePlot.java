package dht.jmh;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.text.DecimalFormat;
import java.text.FieldPosition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Draws the cost curve from {@link CostCurve}'s results file: fill rate, cold read p99, write and
 * space amplification against the number of keys (log scale; latency on a log scale too), one line per engine, four panels in
 * one PNG. A size measured more than once shows the median.
 * Usage: {@code CostCurvePlot RESULTS PNG [TITLE]}.
 */
public final class CostCurvePlot {
    private static final String[][] PANELS = {
        {"fill_keys_per_s", "Fill rate (keys/s, with settling)"},
        {"p99_ms", "Cold point reads at 5,000/s: p99 (ms)"},
        {"write_amp", "Write amplification (disk bytes written / bytes put)"},
        {"space_amp", "Space amplification (disk bytes / logical bytes)"}};
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b)};

    private CostCurvePlot() {}

    public static void main(String[] args) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<String> lines = Files.readAllLines(Path.of(args[0]));
        List<String> header = Arrays.asList(lines.get(0).split("\t"));
        String title = args.length > 2 ? args[2] : "Cost curve";
        int width = 1400;
        int height = 1000;
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        for (int p = 0; p < PANELS.length; p++) {
            JFreeChart chart = panel(lines, header, PANELS[p][0], PANELS[p][1], p == 0 ? title : null);
            chart.draw(g, new Rectangle2D.Double((p % 2) * width / 2.0, (p / 2) * height / 2.0, width / 2.0, height / 2.0));
        }
        g.dispose();
        ImageIO.write(image, "png", Path.of(args[1]).toFile());
    }

    private static JFreeChart panel(List<String> lines, List<String> header, String column, String label, String title) {
        int engineCol = header.indexOf("engine");
        int keysCol = header.indexOf("keys");
        int valueCol = header.indexOf(column);
        Map<String, Map<Long, List<Double>>> byEngine = new TreeMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split("\t");
            byEngine.computeIfAbsent(f[engineCol], e -> new TreeMap<>())
                    .computeIfAbsent(Long.parseLong(f[keysCol]), k -> new java.util.ArrayList<>())
                    .add(Double.parseDouble(f[valueCol]));
        }
        XYSeriesCollection data = new XYSeriesCollection();
        for (var e : byEngine.entrySet()) {
            XYSeries s = new XYSeries(e.getKey());
            for (var point : e.getValue().entrySet()) s.add((double) point.getKey(), (Number) median(point.getValue()));
            data.addSeries(s);
        }
        LogAxis x = new LogAxis("keys (16-byte keys, 100-byte values)");
        x.setBase(10);
        x.setSmallestValue(1e5);
        x.setAutoTickUnitSelection(false);
        x.setTickUnit(new NumberTickUnit(1.0)); // one tick per decade, labelled 1M, 10M, 100M
        x.setMinorTickMarksVisible(false);
        x.setNumberFormatOverride(new DecimalFormat("#,##0") {
            @Override
            public StringBuffer format(double number, StringBuffer to, FieldPosition pos) {
                return number >= 1e6 ? to.append(Math.round(number / 1e6)).append('M') : super.format(number, to, pos);
            }
        });
        org.jfree.chart.axis.ValueAxis y;
        if (column.endsWith("_ms")) {
            LogAxis logY = new LogAxis(label + ", log scale"); // latencies span milliseconds to seconds
            logY.setBase(10);
            logY.setSmallestValue(0.1);
            logY.setAutoTickUnitSelection(false);
            logY.setTickUnit(new NumberTickUnit(1.0)); // 1, 10, 100, 1,000 ms
            logY.setMinorTickMarksVisible(false);
            logY.setNumberFormatOverride(new DecimalFormat("#,##0.#"));
            y = logY;
        } else {
            NumberAxis linear = new NumberAxis(label);
            linear.setAutoRangeIncludesZero(true);
            y = linear;
        }
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            r.setSeriesStroke(i, new BasicStroke(2f));
            r.setSeriesPaint(i, COLORS[i % COLORS.length]);
        }
        XYPlot plot = new XYPlot(data, x, y, r);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    private static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
