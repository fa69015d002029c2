package org.sipcrypt.lab.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.sipcrypt.lab.metrics.CrtBuckets;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.lab.model.CostModel;
import org.sipcrypt.lab.model.Prediction;
import org.sipcrypt.lab.report.Aggregate.Peak;
import org.sipcrypt.lab.report.Stats.Estimate;
import org.sipcrypt.lab.report.Tables.Table;
import org.sipcrypt.lab.runner.Study;

/**
 * The lab's report as one self-contained HTML5 page: the tables of {@link MarkdownReport} (and its
 * list of ciphers whose generator or UAS cost more than a third of the server's per call) plus, per
 * study, bar charts of throughput at the fixed rate and at peak, of CPU per call (and as a ratio to
 * tcp's in the same round, the ranking's figure) and of the CRT
 * percentiles (with 95 % confidence whiskers), and the CRT distribution over the literature's buckets;
 * after the cross-combination table of a scenario run under several handshake combinations, per
 * cipher a bar per combination of its four figures, a skipped cipher's bar absent and the reason in
 * the chart's caption.
 * CSS and SVG are inline and nothing is fetched, so the file opens offline in any browser; every tag
 * is closed, so the page is also well-formed XML.
 * Threading: immutable (static functions only).
 */
public final class HtmlReport {

    private static final String STYLE = String.join("\n",
            "body { font-family: system-ui, sans-serif; color: #222; margin: 2em auto; max-width: 1280px;"
                    + " padding: 0 1em; }",
            "h1, h2, h3 { font-weight: 600; }",
            "h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }",
            "table { border-collapse: collapse; margin: 0.8em 0; font-size: 13px; }",
            "th, td { border: 1px solid #ccc; padding: 3px 8px; vertical-align: top; }",
            "th { background: #f3f3f3; text-align: left; }",
            "td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }",
            ".charts { display: flex; flex-wrap: wrap; gap: 1em; }",
            ".charts figure { margin: 0; }",
            "svg.chart { max-width: 100%; height: auto; border: 1px solid #eee; background: #fff; }",
            "p.note, li.note { color: #555; font-size: 13px; }",
            "");

    private HtmlReport() {
    }

    /** The page of the studies, with the cost model's section when {@code model} is not null. */
    public static String render(List<Study> studies, CostModel.Result model) {
        Objects.requireNonNull(studies, "studies");
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
                .append("<title>sipcrypt crypto lab report</title>\n<style>\n").append(STYLE).append("</style>\n")
                .append("</head>\n<body>\n<h1>sipcrypt crypto lab report</h1>\n");
        paragraph(b, "What securing SIP signalling costs the server, per cipher suite, against the plaintext udp and tcp"
                + " baselines. ± and the whiskers are the 95 % confidence interval of the mean over valid repetitions"
                + " (Student's t); n/a: not measured, or one repetition only for an interval.", "note");
        b.append("<h2>Environment</h2>\n");
        table(b, Tables.environment(studies));
        if (Tables.mixedEnvironments(studies)) {
            paragraph(b, "The studies ran on different JVMs or machines: compare across them with care.", null);
        }
        for (Study s : studies) {
            study(b, s, studies);
        }
        for (CrossCombinations.Section c : CrossCombinations.sections(studies)) {
            b.append("<h2>").append(XmlText.escape(CrossCombinations.heading(c))).append("</h2>\n");
            table(b, c.table());
            paragraph(b, CrossCombinations.NOTE, "note");
            if (!c.skipped().isEmpty()) {
                b.append("<ul>\n");
                for (String line : c.skipped()) {
                    b.append("<li class=\"note\">").append(XmlText.escape(line)).append("</li>\n");
                }
                b.append("</ul>\n");
            }
            b.append("<div class=\"charts\">\n");
            for (String chart : crossCharts(c)) {
                b.append("<figure>\n").append(chart).append("</figure>\n");
            }
            b.append("</div>\n");
        }
        for (CrossServers.Section c : CrossServers.sections(studies)) {
            b.append("<h2>").append(XmlText.escape(CrossServers.heading(c))).append("</h2>\n");
            table(b, c.table());
            paragraph(b, CrossServers.NOTE, "note");
        }
        if (model != null) {
            model(b, model);
        }
        return b.append("</body>\n</html>\n").toString();
    }

    private static void study(StringBuilder b, Study s, List<Study> all) {
        List<Aggregate> fixed = Aggregate.fixed(s);
        List<Peak> peaks = Aggregate.peaks(s);
        String name = Tables.heading(s, all);
        b.append("<section>\n<h2>Scenario ").append(XmlText.escape(name)).append("</h2>\n");
        if (fixed.isEmpty() && peaks.isEmpty()) {
            paragraph(b, "No points were run.", null);
        }
        if (!fixed.isEmpty()) {
            b.append("<h3>Fixed rate</h3>\n");
            table(b, Tables.fixed(fixed));
            List<String> fraction = Tables.fractionRates(s);
            if (!fraction.isEmpty()) {
                paragraph(b, fraction.get(0), null);
                b.append("<ul>\n");
                for (String line : fraction.subList(1, fraction.size())) {
                    b.append("<li>").append(XmlText.escape(line)).append("</li>\n");
                }
                b.append("</ul>\n");
            }
            paragraph(b, Tables.BASELINE_NOTE, "note");
            paragraph(b, Tables.ENGINE_NOTE, "note");
            paragraph(b, Tables.CPU_NOTE, "note");
            paragraph(b, Tables.LAB_CPU_NOTE, "note");
            List<String> heavy = Tables.heavyLab(fixed);
            if (!heavy.isEmpty()) {
                paragraph(b, Tables.HEAVY_HEADING, null);
                b.append("<ul>\n");
                for (String line : heavy) {
                    b.append("<li>").append(XmlText.escape(line)).append("</li>\n");
                }
                b.append("</ul>\n");
            } else if (Tables.labCpuWithinShare(fixed) != null) {
                paragraph(b, Tables.labCpuWithinShare(fixed), null);
            }
            b.append("<h3>Ranking</h3>\n");
            table(b, Tables.ranking(fixed));
            paragraph(b, Tables.rankingNote(fixed), "note");
            b.append("<h3>Call response time distribution</h3>\n");
            table(b, Tables.crtBuckets(fixed));
        }
        if (!peaks.isEmpty()) {
            b.append("<h3>Peak throughput</h3>\n");
            table(b, Tables.peaks(peaks));
            paragraph(b, Tables.PEAK_NOTE, "note");
        }
        Table handshakes = Tables.handshakes(s);
        if (!handshakes.rows().isEmpty()) {
            b.append("<h3>Handshake</h3>\n");
            table(b, handshakes);
            paragraph(b, Tables.HANDSHAKE_NOTE, "note");
        }
        Table idle = Tables.idleHeap(s);
        if (!idle.rows().isEmpty()) {
            b.append("<h3>Heap per idle connection</h3>\n");
            table(b, idle);
            paragraph(b, Tables.IDLE_NOTE, "note");
        }
        String reference = Tables.reference(s.scenario());
        if (reference != null) {
            paragraph(b, reference, null);
        }
        List<String> excluded = Tables.exclusions(fixed, peaks);
        if (!excluded.isEmpty()) {
            b.append("<h3>Left out</h3>\n<ul>\n");
            for (String line : excluded) {
                b.append("<li>").append(XmlText.escape(line)).append("</li>\n");
            }
            b.append("</ul>\n");
        }
        if (!fixed.isEmpty() || !peaks.isEmpty()) {
            b.append("<div class=\"charts\">\n");
            for (String chart : charts(name, fixed, peaks)) {
                b.append("<figure>\n").append(chart).append("</figure>\n");
            }
            b.append("</div>\n");
        }
        b.append("</section>\n");
    }

    /** The charts of one study: one SVG each. */
    private static List<String> charts(String name, List<Aggregate> fixed, List<Peak> peaks) {
        List<String> out = new ArrayList<>();
        if (!fixed.isEmpty()) {
            List<String> ciphers = fixed.stream().map(Aggregate::cipher).toList();
            out.add(SvgCharts.bars(name + ": completed calls per second" + offered(fixed), "calls per second", ciphers,
                    List.of(series("mean of valid repetitions", fixed, Aggregate::completedCps))));
            out.add(SvgCharts.bars(name + ": server CPU per call", "CPU µs per call", ciphers,
                    List.of(series("mean of valid repetitions", fixed, Aggregate::cpuPerCallRanked))));
            if (Tables.rankedByRatio(fixed)) {
                out.add(SvgCharts.bars(name + ": server CPU per call / tcp's in the same round", "ratio to tcp",
                        ciphers, List.of(series("mean over rounds", fixed, Aggregate::cpuRatioToTcp))));
            }
            out.add(SvgCharts.bars(name + ": call response time percentiles", "ms", ciphers,
                    List.of(series("p50", fixed, Aggregate::crtP50Ms), series("p90", fixed, Aggregate::crtP90Ms),
                            series("p99", fixed, Aggregate::crtP99Ms))));
            double[][] percents = fixed.stream().map(Aggregate::crtBucketPercents).toArray(double[][]::new);
            List<String> buckets = new ArrayList<>();
            for (String n : CrtBuckets.NAMES) {
                buckets.add(n + " ms");
            }
            out.add(SvgCharts.stacked(name + ": call response time distribution", ciphers, buckets, percents));
        }
        if (!peaks.isEmpty()) {
            List<String> ciphers = peaks.stream().map(Peak::cipher).toList();
            out.add(SvgCharts.bars(name + ": peak and sustainable throughput", "calls per second", ciphers,
                    List.of(peakSeries("peak", peaks, Peak::peakCps),
                            peakSeries("sustainable", peaks, Peak::sustainableCps))));
        }
        return out;
    }

    /**
     * The cross-combination table's four figures as charts: per cipher a bar per combination, a
     * skipped cipher's bar absent with "skipped" in its place and the reason in the caption.
     */
    private static List<String> crossCharts(CrossCombinations.Section c) {
        String name = c.scenario();
        List<String> skipped = c.skipped();
        List<String> ranges = new ArrayList<>();
        for (CrossCombinations.Row r : c.rows()) {
            for (int i = 0; i < c.ciphers().size(); i++) {
                String seen = Tables.range(r.cells().get(i).fullHandshakes(), TlsFlights::clientHelloBytes);
                if (seen.contains("–")) {
                    ranges.add(c.ciphers().get(i) + " under " + r.combination() + ": " + seen
                            + " bytes over its points; the bar is the largest.");
                }
            }
        }
        List<String> hellos = new ArrayList<>(ranges);
        hellos.addAll(skipped);
        return List.of(
                SvgCharts.bars(name + ": server CPU per call / tcp's in the same round", "ratio to tcp", c.ciphers(),
                        crossSeries(c, cell -> cell.ratioToTcp().mean(), cell -> cell.ratioToTcp().halfWidth95()),
                        skipped),
                SvgCharts.bars(name + ": server CPU per handshake (estimate, an upper bound)", "CPU µs per handshake",
                        c.ciphers(), crossSeries(c, cell -> cell.cpuMicrosPerHandshake().mean(),
                                cell -> cell.cpuMicrosPerHandshake().halfWidth95()), skipped),
                SvgCharts.bars(name + ": full handshake latency p50 (generator)", "ms", c.ciphers(),
                        crossSeries(c, CrossCombinations.Cell::handshakeP50Ms, cell -> Double.NaN), skipped),
                SvgCharts.bars(name + ": ClientHello bytes (first full handshake)", "bytes", c.ciphers(),
                        crossSeries(c, CrossCombinations.Cell::clientHelloBytes, cell -> Double.NaN), hellos));
    }

    /** A series per combination, a value per cipher: NaN where skipped ("skipped") or not measured ("n/a"). */
    private static List<SvgCharts.Series> crossSeries(CrossCombinations.Section c,
            ToDoubleFunction<CrossCombinations.Cell> value, ToDoubleFunction<CrossCombinations.Cell> halfWidth) {
        List<SvgCharts.Series> out = new ArrayList<>();
        for (CrossCombinations.Row r : c.rows()) {
            int n = r.cells().size();
            double[] values = new double[n];
            double[] halfWidths = new double[n];
            String[] absent = new String[n];
            for (int i = 0; i < n; i++) {
                CrossCombinations.Cell cell = r.cells().get(i);
                values[i] = cell.isSkipped() ? Double.NaN : value.applyAsDouble(cell);
                halfWidths[i] = cell.isSkipped() ? Double.NaN : halfWidth.applyAsDouble(cell);
                absent[i] = cell.isSkipped() ? "skipped" : "n/a";
            }
            out.add(new SvgCharts.Series(r.combination(), values, halfWidths, absent));
        }
        return out;
    }

    private static void model(StringBuilder b, CostModel.Result model) {
        b.append("<section>\n<h2>Cost model</h2>\n");
        paragraph(b, "Server CPU per call split into components by differences between scenarios, and predictions of"
                + " CPU per call and peak throughput from their sums.", "note");
        if (model.components().isEmpty()) {
            paragraph(b, "No component could be fitted.", null);
        } else {
            table(b, Tables.components(model));
        }
        for (String line : Tables.modelSummary(model)) {
            paragraph(b, line, null);
        }
        if (!model.predictions().isEmpty()) {
            table(b, Tables.predictions(model));
        }
        List<Prediction> peaks = model.predictions().stream()
                .filter(p -> Double.isFinite(p.predictedPeakCps())).toList();
        if (!peaks.isEmpty()) {
            List<String> names = peaks.stream().map(p -> p.scenario() + " " + p.cipher()).toList();
            double[] none = new double[peaks.size()];
            Arrays.fill(none, Double.NaN);
            b.append("<div class=\"charts\">\n<figure>\n").append(SvgCharts.bars("Cost model: predicted and measured"
                            + " peak throughput", "calls per second", names,
                    List.of(new SvgCharts.Series("predicted", peaks.stream().mapToDouble(
                                    Prediction::predictedPeakCps).toArray(), none),
                            new SvgCharts.Series("measured", peaks.stream().mapToDouble(
                                    Prediction::measuredPeakCps).toArray(), none))))
                    .append("</figure>\n</div>\n");
        }
        if (!model.notes().isEmpty()) {
            b.append("<h3>Missing inputs</h3>\n<ul>\n");
            for (String note : model.notes()) {
                b.append("<li class=\"note\">").append(XmlText.escape(note)).append("</li>\n");
            }
            b.append("</ul>\n");
        }
        b.append("</section>\n");
    }

    private static String offered(List<Aggregate> fixed) {
        double rate = fixed.get(0).offeredCps();
        boolean same = fixed.stream().allMatch(a -> a.offeredCps() == rate);
        return same && Double.isFinite(rate) ? " at " + Tables.num(rate) + " offered" : "";
    }

    private static SvgCharts.Series series(String name, List<Aggregate> fixed, Function<Aggregate, Estimate> metric) {
        return new SvgCharts.Series(name, fixed.stream().mapToDouble(a -> metric.apply(a).mean()).toArray(),
                fixed.stream().mapToDouble(a -> metric.apply(a).halfWidth95()).toArray());
    }

    private static SvgCharts.Series peakSeries(String name, List<Peak> peaks, Function<Peak, Estimate> metric) {
        return new SvgCharts.Series(name, peaks.stream().mapToDouble(p -> metric.apply(p).mean()).toArray(),
                peaks.stream().mapToDouble(p -> metric.apply(p).halfWidth95()).toArray());
    }

    private static void table(StringBuilder b, Table t) {
        b.append("<table>\n<thead>\n<tr>");
        for (String h : t.header()) {
            b.append("<th>").append(XmlText.escape(h)).append("</th>");
        }
        b.append("</tr>\n</thead>\n<tbody>\n");
        for (List<String> row : t.rows()) {
            b.append("<tr>");
            for (int i = 0; i < row.size(); i++) {
                b.append(t.numeric(i) ? "<td class=\"num\">" : "<td>").append(XmlText.escape(row.get(i))).append("</td>");
            }
            b.append("</tr>\n");
        }
        b.append("</tbody>\n</table>\n");
    }

    private static void paragraph(StringBuilder b, String text, String cssClass) {
        b.append(cssClass == null ? "<p>" : String.format(Locale.ROOT, "<p class=\"%s\">", cssClass))
                .append(XmlText.escape(text)).append("</p>\n");
    }
}
