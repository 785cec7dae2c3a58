package dht.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Latency by percentile, as HdrHistogram's plotter draws it: the x axis is 1/(1-percentile) on a
 * log scale, labelled 90%, 99%, 99.9%..., so that the tail gets as much room as the median. One
 * line per .hgrm file, to compare runs.
 */
public final class PercentilePlot {
    private PercentilePlot() {
    }

    public static void write(List<HgrmFile> runs, String title, Path png) throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYSeriesCollection data = new XYSeriesCollection();
        double maxX = 10;
        for (HgrmFile run : runs) {
            XYSeries s = new XYSeries(run.name(), false, true);
            for (double[] row : run.rows()) {
                double p = row[1];
                if (p >= 1.0) {
                    continue; // 1/(1-1) is infinite: the max is the last finite row's neighbour
                }
                double x = 1.0 / (1.0 - p);
                s.add(x, row[0]);
                maxX = Math.max(maxX, x);
            }
            data.addSeries(s);
        }
        LogAxis x = new LogAxis("Percentile");
        x.setBase(10);
        x.setRange(1, Math.pow(10, Math.ceil(Math.log10(maxX))));
        x.setNumberFormatOverride(new PercentileFormat());
        x.setMinorTickMarksVisible(false);
        x.setAutoTickUnitSelection(false);
        x.setTickUnit(new org.jfree.chart.axis.NumberTickUnit(1.0)); // one tick per decade: 0%, 90%, 99%, 99.9%...
        NumberAxis y = new NumberAxis("Latency (ms)");
        y.setAutoRangeIncludesZero(true);
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
        Color[] colors = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
            new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f)};
        for (int i = 0; i < runs.size(); i++) {
            r.setSeriesStroke(i, new BasicStroke(2f));
            r.setSeriesPaint(i, colors[i % colors.length]);
        }
        XYPlot plot = new XYPlot(data, x, y, r);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 600);
    }

    /** Labels 10 as 90%, 100 as 99%, 1000 as 99.9% ... */
    static final class PercentileFormat extends NumberFormat {
        @Override
        public StringBuffer format(double number, StringBuffer toAppendTo, FieldPosition pos) {
            double p = 100.0 * (1.0 - 1.0 / number);
            String s = p <= 0 ? "0%" : new java.math.BigDecimal(p).round(new java.math.MathContext(
                    Math.max(2, (int) Math.round(Math.log10(number)) + 1))).stripTrailingZeros().toPlainString() + "%";
            return toAppendTo.append(s);
        }

        @Override
        public StringBuffer format(long number, StringBuffer toAppendTo, FieldPosition pos) {
            return format((double) number, toAppendTo, pos);
        }

        @Override
        public Number parse(String source, ParsePosition parsePosition) {
            return null;
        }
    }
}
