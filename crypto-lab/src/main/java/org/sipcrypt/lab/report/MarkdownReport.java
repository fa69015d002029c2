package org.sipcrypt.lab.report;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.sipcrypt.lab.model.CostModel;
import org.sipcrypt.lab.report.Aggregate.Peak;
import org.sipcrypt.lab.report.Tables.Table;
import org.sipcrypt.lab.runner.Study;

/**
 * The lab's report as GitHub-flavoured Markdown: the environment, then per study its fixed-rate table
 * (the TLS engines the server ran each cipher on, mean ± 95 % confidence interval over valid
 * repetitions, CPU per call relative to the udp and tcp
 * baselines, and the lab's own CPU per call by role, flagged where the generator or the UAS cost more
 * than a third of the server's), the ciphers ranked by their CPU per call as a ratio to tcp's in the
 * same round, the distribution of call response times over the literature's buckets, the peak table,
 * the sizes and latencies of the generator's TLS handshakes when it made any, and why any
 * repetition was left out; then the handshake combinations side by side ({@link CrossCombinations})
 * and the servers under test side by side ({@link CrossServers}) where the studies ran several;
 * then the cost model when one is given.
 * Threading: immutable (static functions only).
 */
public final class MarkdownReport {

    private MarkdownReport() {
    }

    /** The report of the studies, with the cost model's section when {@code model} is not null. */
    public static String render(List<Study> studies, CostModel.Result model) {
        Objects.requireNonNull(studies, "studies");
        StringBuilder b = new StringBuilder();
        b.append("# sipcrypt crypto lab report\n\n");
        b.append("What securing SIP signalling costs the server, per cipher suite, against the plaintext udp and tcp"
                + " baselines. ± is the 95 % confidence interval of the mean over valid repetitions (Student's t);"
                + " n/a: not measured, or one repetition only for an interval.\n\n");
        b.append("## Environment\n\n");
        table(b, Tables.environment(studies));
        if (Tables.mixedEnvironments(studies)) {
            b.append("\nThe studies ran on different JVMs or machines: compare across them with care.\n");
        }
        for (Study s : studies) {
            study(b, s, studies);
        }
        for (CrossCombinations.Section c : CrossCombinations.sections(studies)) {
            b.append("\n## ").append(inline(CrossCombinations.heading(c))).append("\n\n");
            table(b, c.table());
            b.append('\n').append(inline(CrossCombinations.NOTE)).append('\n');
            if (!c.skipped().isEmpty()) {
                b.append('\n');
                for (String line : c.skipped()) {
                    b.append("- ").append(inline(line)).append('\n');
                }
            }
        }
        for (CrossServers.Section c : CrossServers.sections(studies)) {
            b.append("\n## ").append(inline(CrossServers.heading(c))).append("\n\n");
            table(b, c.table());
            b.append('\n').append(inline(CrossServers.NOTE)).append('\n');
        }
        if (model != null) {
            model(b, model);
        }
        return b.toString();
    }

    private static void study(StringBuilder b, Study s, List<Study> all) {
        List<Aggregate> fixed = Aggregate.fixed(s);
        List<Peak> peaks = Aggregate.peaks(s);
        b.append("\n## Scenario ").append(inline(Tables.heading(s, all))).append("\n");
        if (fixed.isEmpty() && peaks.isEmpty()) {
            b.append("\nNo points were run.\n");
        }
        if (!fixed.isEmpty()) {
            b.append("\n### Fixed rate\n\n");
            table(b, Tables.fixed(fixed));
            List<String> fraction = Tables.fractionRates(s);
            if (!fraction.isEmpty()) {
                b.append('\n').append(inline(fraction.get(0))).append("\n\n");
                for (String line : fraction.subList(1, fraction.size())) {
                    b.append("- ").append(inline(line)).append('\n');
                }
            }
            b.append('\n').append(Tables.BASELINE_NOTE).append('\n');
            b.append('\n').append(inline(Tables.ENGINE_NOTE)).append('\n');
            b.append('\n').append(Tables.CPU_NOTE).append('\n');
            List<String> wide = Tables.imprecise(fixed);
            if (wide.isEmpty()) {
                b.append(String.format(Locale.ROOT, "\nEvery CPU-per-call interval is within ±%.0f %% of its mean.\n",
                        Tables.PRECISION_PCT));
            } else {
                b.append(String.format(Locale.ROOT, "\nWIDE: CPU per call known to worse than ±%.0f %%, too imprecise to"
                        + " compare cipher suites by their CPU per call (more repetitions or a longer run narrow"
                        + " it):\n\n", Tables.PRECISION_PCT));
                for (String line : wide) {
                    b.append("- ").append(inline(line)).append('\n');
                }
            }
            b.append('\n').append(inline(Tables.LAB_CPU_NOTE)).append('\n');
            List<String> heavy = Tables.heavyLab(fixed);
            if (!heavy.isEmpty()) {
                b.append('\n').append(inline(Tables.HEAVY_HEADING)).append("\n\n");
                for (String line : heavy) {
                    b.append("- ").append(inline(line)).append('\n');
                }
            } else if (Tables.labCpuWithinShare(fixed) != null) {
                b.append('\n').append(inline(Tables.labCpuWithinShare(fixed))).append('\n');
            }
            b.append("\n### Ranking\n\n");
            table(b, Tables.ranking(fixed));
            b.append('\n').append(inline(Tables.rankingNote(fixed))).append('\n');
            b.append("\n### Call response time distribution\n\n");
            table(b, Tables.crtBuckets(fixed));
        }
        if (!peaks.isEmpty()) {
            b.append("\n### Peak throughput\n\n");
            table(b, Tables.peaks(peaks));
            b.append('\n').append(Tables.PEAK_NOTE).append('\n');
        }
        Table handshakes = Tables.handshakes(s);
        if (!handshakes.rows().isEmpty()) {
            b.append("\n### Handshake\n\n");
            table(b, handshakes);
            b.append('\n').append(inline(Tables.HANDSHAKE_NOTE)).append('\n');
        }
        Table idle = Tables.idleHeap(s);
        if (!idle.rows().isEmpty()) {
            b.append("\n### Heap per idle connection\n\n");
            table(b, idle);
            b.append('\n').append(inline(Tables.IDLE_NOTE)).append('\n');
        }
        String reference = Tables.reference(s.scenario());
        if (reference != null) {
            b.append('\n').append(reference).append('\n');
        }
        List<String> excluded = Tables.exclusions(fixed, peaks);
        if (!excluded.isEmpty()) {
            b.append("\n### Left out\n\n");
            for (String line : excluded) {
                b.append("- ").append(inline(line)).append('\n');
            }
        }
    }

    private static void model(StringBuilder b, CostModel.Result model) {
        b.append("\n## Cost model\n\n");
        b.append("Server CPU per call split into components by differences between scenarios, and predictions of"
                + " CPU per call and peak throughput from their sums.\n\n");
        if (model.components().isEmpty()) {
            b.append("No component could be fitted.\n");
        } else {
            table(b, Tables.components(model));
        }
        b.append('\n');
        for (String line : Tables.modelSummary(model)) {
            b.append(inline(line)).append("\n\n");
        }
        if (!model.predictions().isEmpty()) {
            table(b, Tables.predictions(model));
        }
        if (!model.notes().isEmpty()) {
            b.append("\n### Missing inputs\n\n");
            for (String note : model.notes()) {
                b.append("- ").append(inline(note)).append('\n');
            }
        }
    }

    /** A table as GitHub-flavoured Markdown, numbers aligned right. */
    static void table(StringBuilder b, Table t) {
        row(b, t.header());
        b.append('|');
        for (int i = 0; i < t.header().size(); i++) {
            b.append(t.numeric(i) ? " ---: |" : " --- |");
        }
        b.append('\n');
        for (List<String> r : t.rows()) {
            row(b, r);
        }
    }

    private static void row(StringBuilder b, List<String> cells) {
        b.append('|');
        for (String c : cells) {
            b.append(' ').append(cell(c)).append(" |");
        }
        b.append('\n');
    }

    /** A table cell: pipes escaped so they do not end the cell, one line. */
    private static String cell(String text) {
        return inline(text).replace("|", "\\|");
    }

    /** Text on one line, with the characters Markdown would read as markup escaped. */
    static String inline(String text) {
        StringBuilder b = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (c == '\n' || c == '\r') {
                b.append(' ');
            } else {
                if (c == '\\' || c == '*' || c == '_' || c == '`' || c == '<' || c == '[' || c == ']') {
                    b.append('\\');
                }
                b.append(c);
            }
        }
        return b.toString();
    }
}
