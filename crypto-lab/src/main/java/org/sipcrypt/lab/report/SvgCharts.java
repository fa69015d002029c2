package org.sipcrypt.lab.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Inline SVG charts for the HTML report, drawn from numbers alone: grouped bars with 95 % confidence
 * whiskers and stacked 100 % bars, each with a title, a legend, a y axis with labelled ticks, and a
 * {@code <title>} and {@code aria-label} for screen readers. Styling is in attributes so a chart
 * copied out of the page still renders; markup is well-formed XML.
 * Threading: immutable (static functions only).
 */
final class SvgCharts {

    static final int WIDTH = 640;
    /** Height above the bottom margin: title, legend and plot. */
    private static final int HEIGHT_ABOVE_MARGIN = 276;
    /** Tableau 10: told apart by most readers, in print too; a series past the tenth repeats a colour. */
    static final String[] SERIES_COLOURS = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
        "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    /** Green to red, fast to slow, one per CRT bucket. */
    static final String[] BUCKET_COLOURS = {"#1a9850", "#91cf60", "#d9ef8b", "#fee08b", "#fc8d59", "#d73027"};

    private static final int LEFT = 72;
    private static final int RIGHT = 16;
    private static final int BOTTOM = 44;
    private static final int MAX_BOTTOM = 150;
    private static final int LEGEND_Y = 42;
    private static final int LEGEND_ROW_HEIGHT = 16;
    private static final double CHAR_WIDTH = 6.5;
    private static final int CAPTION_LINE_HEIGHT = 14;

    private SvgCharts() {
    }

    /**
     * One series of bars: a value per category, the half-width of its confidence interval (NaN: no
     * whisker) and what to write where a value is NaN and no bar is drawn ("n/a", "skipped").
     * Threading: immutable.
     */
    record Series(String name, double[] values, double[] halfWidths, String[] absentLabels) {

        Series {
            Objects.requireNonNull(name, "name");
            values = values.clone();
            halfWidths = halfWidths.clone();
            absentLabels = absentLabels.clone();
            if (values.length != halfWidths.length || values.length != absentLabels.length) {
                throw new IllegalArgumentException("values, halfWidths and absentLabels differ in length");
            }
        }

        /** A series whose NaN values draw "n/a". */
        Series(String name, double[] values, double[] halfWidths) {
            this(name, values, halfWidths, filled(values.length, "n/a"));
        }

        private static String[] filled(int length, String label) {
            String[] out = new String[length];
            java.util.Arrays.fill(out, label);
            return out;
        }
    }

    /** Bars per category, one per series side by side, with whiskers where a half-width is known. */
    static String bars(String title, String unit, List<String> categories, List<Series> series) {
        return bars(title, unit, categories, series, List.of());
    }

    /**
     * Bars per category, one per series side by side, with whiskers where a half-width is known, and
     * the caption's lines (what an absent bar means, say) under the category names.
     */
    static String bars(String title, String unit, List<String> categories, List<Series> series, List<String> caption) {
        double max = 0;
        boolean whiskers = false;
        for (Series s : series) {
            for (int i = 0; i < s.values().length; i++) {
                double v = s.values()[i];
                double hw = s.halfWidths()[i];
                whiskers |= Double.isFinite(v) && Double.isFinite(hw);
                max = Math.max(max, Double.isFinite(v) ? v + (Double.isFinite(hw) ? hw : 0) : 0);
            }
        }
        List<String[]> legend = new ArrayList<>();
        for (int j = 0; j < series.size(); j++) {
            legend.add(new String[] {series.get(j).name(), SERIES_COLOURS[j % SERIES_COLOURS.length]});
        }
        if (whiskers) {
            legend.add(new String[] {"95 % confidence interval", null});
        }
        StringBuilder b = new StringBuilder();
        int bottom = HEIGHT_ABOVE_MARGIN;
        int captionTop = bottom + bottomMargin(categories);
        List<String> captionLines = wrap(caption);
        int top = open(b, title, legend, captionTop + (captionLines.isEmpty() ? 0
                : captionLines.size() * CAPTION_LINE_HEIGHT + 6));
        for (int k = 0; k < captionLines.size(); k++) {
            label(b, LEFT, captionTop + (k + 1) * CAPTION_LINE_HEIGHT - 2, "start", captionLines.get(k), "#444");
        }
        double scaleTop = yAxis(b, top, bottom, max, unit, false);
        double catWidth = (WIDTH - LEFT - RIGHT) / (double) Math.max(1, categories.size());
        double groupWidth = Math.min(catWidth * 0.75, 48.0 * series.size());
        double barWidth = groupWidth / Math.max(1, series.size());
        for (int i = 0; i < categories.size(); i++) {
            double centre = LEFT + catWidth * (i + 0.5);
            category(b, centre, bottom, catWidth, categories.get(i));
            for (int j = 0; j < series.size(); j++) {
                Series s = series.get(j);
                double x = centre - groupWidth / 2 + j * barWidth;
                double v = s.values()[i];
                double hw = s.halfWidths()[i];
                if (!Double.isFinite(v)) {
                    absent(b, x + barWidth / 2, bottom - 4, barWidth, s.absentLabels()[i]);
                    continue;
                }
                double y = yOf(Math.max(0, v), scaleTop, top, bottom);
                String tip = categories.get(i) + (series.size() > 1 ? " " + s.name() : "") + ": "
                        + Tables.est(new Stats.Estimate(2, v, Double.NaN, hw)) + " " + unit;
                b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\""
                                + " fill=\"%s\"><title>%s</title></rect>%n", x + 1, y, Math.max(1, barWidth - 2),
                        bottom - y, SERIES_COLOURS[j % SERIES_COLOURS.length], XmlText.escape(tip)));
                if (Double.isFinite(hw)) {
                    double cx = x + barWidth / 2;
                    double yLow = yOf(Math.max(0, v - hw), scaleTop, top, bottom);
                    double yHigh = yOf(v + hw, scaleTop, top, bottom);
                    b.append(String.format(Locale.ROOT, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\""
                                    + " stroke=\"#222\" stroke-width=\"1.2\" fill=\"none\"/>%n", cx, yLow, yHigh, cx - 4,
                            yLow, cx + 4, cx - 4, yHigh, cx + 4));
                }
            }
        }
        return b.append("</svg>\n").toString();
    }

    /** One bar per category of 100 %, split into parts (percentages adding up to 100). */
    static String stacked(String title, List<String> categories, List<String> parts, double[][] percents) {
        List<String[]> legend = new ArrayList<>();
        for (int j = 0; j < parts.size(); j++) {
            legend.add(new String[] {parts.get(j), BUCKET_COLOURS[j % BUCKET_COLOURS.length]});
        }
        StringBuilder b = new StringBuilder();
        int bottom = HEIGHT_ABOVE_MARGIN;
        int top = open(b, title, legend, bottom + bottomMargin(categories));
        double scaleTop = yAxis(b, top, bottom, 100, "% of calls", true);
        double catWidth = (WIDTH - LEFT - RIGHT) / (double) Math.max(1, categories.size());
        double barWidth = Math.min(catWidth * 0.6, 64);
        for (int i = 0; i < categories.size(); i++) {
            double centre = LEFT + catWidth * (i + 0.5);
            category(b, centre, bottom, catWidth, categories.get(i));
            double[] row = percents[i];
            boolean known = row.length == parts.size();
            for (double p : row) {
                known &= Double.isFinite(p);
            }
            if (!known) {
                label(b, centre, bottom - 4, "middle", "n/a", "#666");
                continue;
            }
            double from = 0;
            for (int j = 0; j < parts.size(); j++) {
                double yTop = yOf(from + row[j], scaleTop, top, bottom);
                double yBottom = yOf(from, scaleTop, top, bottom);
                from += row[j];
                if (row[j] <= 0) {
                    continue;
                }
                b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\""
                                + " fill=\"%s\"><title>%s</title></rect>%n", centre - barWidth / 2, yTop, barWidth,
                        yBottom - yTop, BUCKET_COLOURS[j % BUCKET_COLOURS.length], XmlText.escape(String.format(
                                Locale.ROOT, "%s %s: %.1f %%", categories.get(i), parts.get(j), row[j]))));
            }
        }
        return b.append("</svg>\n").toString();
    }

    /** The opening tag, title and legend; returns where the plot area begins. */
    private static int open(StringBuilder b, String title, List<String[]> legend, int height) {
        String t = XmlText.escape(title);
        b.append(String.format(Locale.ROOT, "<svg class=\"chart\" role=\"img\" aria-label=\"%s\" viewBox=\"0 0 %d %d\""
                        + " width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">%n", t, WIDTH, height,
                WIDTH, height));
        b.append("<title>").append(t).append("</title>\n");
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"14\""
                + " font-weight=\"bold\">%s</text>%n", WIDTH / 2, t));
        double x = LEFT;
        int y = LEGEND_Y;
        for (String[] item : legend) {
            double w = 22 + item[0].length() * CHAR_WIDTH + 14;
            if (x + w > WIDTH - RIGHT && x > LEFT) {
                x = LEFT;
                y += LEGEND_ROW_HEIGHT;
            }
            if (item[1] != null) {
                b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"12\" height=\"10\" fill=\"%s\"/>%n",
                        x, y - 9, item[1]));
            } else {
                b.append(String.format(Locale.ROOT, "<path d=\"M%.1f %dV%dM%.1f %dH%.1fM%.1f %dH%.1f\" stroke=\"#222\""
                        + " fill=\"none\"/>%n", x + 6, y - 10, y, x + 2, y - 10, x + 10, x + 2, y, x + 10));
            }
            label(b, x + 18, y, "start", item[0], null);
            x += w;
        }
        return y + 20;
    }

    /** Grid lines, tick labels and the unit; returns the value at the top of the axis. */
    private static double yAxis(StringBuilder b, int top, int bottom, double max, String unit, boolean percent) {
        double step = percent ? 20 : niceStep(max > 0 && Double.isFinite(max) ? max : 1);
        double scaleTop = percent ? 100 : step * Math.max(1, Math.ceil(max / step - 1e-9));
        int decimals = decimals(step);
        for (int i = 0; i * step <= scaleTop + step * 1e-9; i++) {
            double v = i * step;
            double y = yOf(v, scaleTop, top, bottom);
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>%n",
                    LEFT, WIDTH - RIGHT, y, y, i == 0 ? "#333" : "#ddd"));
            label(b, LEFT - 6, y + 4, "end", String.format(Locale.ROOT, "%." + decimals + "f", v), null);
        }
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n", LEFT,
                LEFT, top, bottom));
        double middle = (top + bottom) / 2.0;
        b.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\""
                + " transform=\"rotate(-90 16 %.1f)\">%s</text>%n", middle, middle, XmlText.escape(unit)));
        return scaleTop;
    }

    /** 1, 2, 2.5 or 5 times a power of ten, giving about five ticks up to {@code max}. */
    static double niceStep(double max) {
        double raw = max / 5;
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double f = raw / magnitude;
        double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
        return nice * magnitude;
    }

    private static int decimals(double step) {
        int d = 0;
        double scaled = step;
        while (d < 6 && Math.abs(scaled - Math.rint(scaled)) > 1e-9 * Math.max(1, scaled)) {
            scaled *= 10;
            d++;
        }
        return d;
    }

    private static double yOf(double value, double scaleTop, int top, int bottom) {
        return bottom - Math.min(value, scaleTop) / scaleTop * (bottom - top);
    }

    /** What stands where a bar is absent: level when it fits the bar's width, else upright along the slot. */
    private static void absent(StringBuilder b, double x, int y, double barWidth, String text) {
        if (text.length() * CHAR_WIDTH <= barWidth) {
            label(b, x, y, "middle", text, "#666");
            return;
        }
        b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"start\" dominant-baseline=\"central\""
                + " fill=\"#666\" transform=\"rotate(-90 %.1f %d)\">%s</text>%n", x, y, x, y, XmlText.escape(text)));
    }

    /** The caption's lines broken at spaces to fit the chart's width. */
    private static List<String> wrap(List<String> lines) {
        int fit = (int) ((WIDTH - LEFT - RIGHT) / CHAR_WIDTH);
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            StringBuilder current = new StringBuilder();
            for (String word : line.split(" ")) {
                if (current.length() > 0 && current.length() + 1 + word.length() > fit) {
                    out.add(current.toString());
                    current.setLength(0);
                }
                current.append(current.length() > 0 ? " " : "").append(word);
            }
            out.add(current.toString());
        }
        return out;
    }

    /** Room under the plot for the category names: more when they must be slanted. */
    private static int bottomMargin(List<String> categories) {
        double catWidth = (WIDTH - LEFT - RIGHT) / (double) Math.max(1, categories.size());
        double longest = categories.stream().mapToInt(String::length).max().orElse(0) * CHAR_WIDTH;
        return longest <= catWidth ? BOTTOM : (int) Math.min(MAX_BOTTOM, 28 + longest * 0.45);
    }

    /** A category's name under its bars, slanted when it is wider than its place. */
    private static void category(StringBuilder b, double centre, int bottom, double catWidth, String name) {
        if (name.length() * CHAR_WIDTH <= catWidth) {
            label(b, centre, bottom + 16, "middle", name, null);
            return;
        }
        b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\""
                + " transform=\"rotate(-25 %.1f %d)\">%s</text>%n", centre + 4, bottom + 12, centre + 4, bottom + 12,
                XmlText.escape(name)));
    }

    private static void label(StringBuilder b, double x, double y, String anchor, String text, String colour) {
        b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>%s</text>%n", x, y, anchor,
                colour == null ? "" : " fill=\"" + colour + "\"", XmlText.escape(text)));
    }
}
