package org.sipcrypt.lab.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.sipcrypt.lab.report.Stats.Estimate;
import org.sipcrypt.lab.report.Tables.Table;
import org.sipcrypt.lab.runner.Study;

/**
 * Whether a second run of the lab agrees with the first, by the goal of the lab's issue: the same
 * rank order of the ciphers in every study, and every figure of the second run inside the first
 * run's 95 % interval. The studies of the two runs are paired by scenario (whose name carries the
 * server under test: {@code chain-kamailio}) and handshake combination
 * ({@link CrossCombinations#combination}); a study of one run only is said and counts against
 * agreement. The figures are the Ranking table's, as the reports compute them ({@link Aggregate#fixed}):
 * each cipher's server CPU per call as a ratio to tcp's in the same round ({@link SameRoundRatios}),
 * or, where either run's study has no tcp baseline, its CPU per call ({@link Aggregate#cpuPerCallRanked()}),
 * and the rank order is the Ranking table's ({@link Tables#rankOrder}). tcp's own ratio (1 in every
 * round) is shown and not counted.
 * Threading: immutable.
 */
public final class RunAgreement {

    /**
     * What pairs a study of one run with one of the other: its scenario and handshake combination.
     * Threading: immutable.
     */
    record Key(String scenario, String combination) {

        @Override
        public String toString() {
            return scenario + " (" + combination + ")";
        }
    }

    /**
     * One cipher of a pair: its figure in each run ({@link Estimate#NONE} where it has none or was not run).
     * Threading: immutable.
     */
    record CipherRow(String cipher, Estimate first, Estimate second, boolean inFirst, boolean inSecond,
                     boolean baseline) {

        /** Whether the second run's mean lies within the first run's interval, bounds included. */
        boolean inside() {
            return !baseline && first.hasInterval() && second.known()
                    && Math.abs(second.mean() - first.mean()) <= first.halfWidth95();
        }

        /** Whether the row counts among the figures compared (every cipher but the ratio's baseline). */
        boolean counted() {
            return !baseline;
        }

        String verdict() {
            if (baseline) {
                return "baseline (×1 in every round), not counted";
            }
            if (!inFirst) {
                return "no: not in the first run";
            }
            if (!inSecond) {
                return "no: not in the second run";
            }
            if (!first.known()) {
                return "no: n/a in the first run";
            }
            if (!second.known()) {
                return "no: n/a in the second run";
            }
            if (!first.hasInterval()) {
                return "no: the first run has no interval (one round)";
            }
            if (inside()) {
                return "yes";
            }
            return second.mean() > first.mean() ? "no: above it" : "no: below it";
        }

        /** The second run's mean less the first's, in % of the first's; NaN when either is unknown. */
        double differencePct() {
            return first.known() && second.known() && first.mean() != 0
                    ? 100 * (second.mean() - first.mean()) / first.mean() : Double.NaN;
        }
    }

    /**
     * One study of the first run and its counterpart in the second (either null when a run has none).
     * Threading: immutable.
     *
     * @param byRatio     whether the figures are ratios to tcp (both studies have them) or CPU per call
     * @param firstOrder  the first run's ciphers with a figure, cheapest first
     * @param secondOrder the second run's, the same way
     */
    record Pair(Key key, Study first, Study second, boolean byRatio, List<String> firstOrder,
                List<String> secondOrder, List<CipherRow> rows) {

        Pair {
            firstOrder = List.copyOf(firstOrder);
            secondOrder = List.copyOf(secondOrder);
            rows = List.copyOf(rows);
        }

        boolean paired() {
            return first != null && second != null;
        }

        /** Whether the pair has anything to compare: a figure in either run. */
        boolean comparable() {
            return !paired() || !firstOrder.isEmpty() || !secondOrder.isEmpty();
        }

        boolean sameOrder() {
            return paired() && firstOrder.equals(secondOrder);
        }

        long counted() {
            return rows.stream().filter(CipherRow::counted).count();
        }

        long inside() {
            return rows.stream().filter(CipherRow::inside).count();
        }
    }

    private final List<Pair> pairs;

    private RunAgreement(List<Pair> pairs) {
        this.pairs = List.copyOf(pairs);
    }

    /**
     * The two runs' studies paired and compared.
     *
     * @throws IllegalArgumentException when a run holds two studies of the same scenario and handshake
     *                                  combination (which one to pair would be a guess), naming them
     */
    public static RunAgreement of(List<Study> first, List<Study> second) {
        Map<Key, Study> a = byKey(first, "the first run");
        Map<Key, Study> b = byKey(second, "the second run");
        List<Pair> pairs = new ArrayList<>();
        a.forEach((key, s) -> pairs.add(pair(key, s, b.get(key))));
        b.forEach((key, s) -> {
            if (!a.containsKey(key)) {
                pairs.add(pair(key, null, s));
            }
        });
        return new RunAgreement(pairs);
    }

    private static Map<Key, Study> byKey(List<Study> studies, String run) {
        Map<Key, Study> out = new LinkedHashMap<>();
        for (Study s : Objects.requireNonNull(studies, "studies")) {
            Key key = new Key(s.scenario(), CrossCombinations.combination(s));
            Study earlier = out.putIfAbsent(key, s);
            if (earlier != null) {
                throw new IllegalArgumentException(run + " holds two studies of " + key + " (#" + earlier.id() + " and #"
                        + s.id() + "): give one run per argument");
            }
        }
        return out;
    }

    private static Pair pair(Key key, Study first, Study second) {
        List<Aggregate> a = first == null ? List.of() : Aggregate.fixed(first);
        List<Aggregate> b = second == null ? List.of() : Aggregate.fixed(second);
        boolean byRatio = (first == null || Tables.rankedByRatio(a)) && (second == null || Tables.rankedByRatio(b));
        List<String> ciphers = new ArrayList<>();
        a.forEach(x -> ciphers.add(x.cipher()));
        b.stream().map(Aggregate::cipher).filter(c -> !ciphers.contains(c)).forEach(ciphers::add);
        List<CipherRow> rows = new ArrayList<>();
        for (String c : ciphers) {
            Estimate e1 = Aggregate.find(a, c).map(x -> Tables.rankedFigure(x, byRatio)).orElse(Estimate.NONE);
            Estimate e2 = Aggregate.find(b, c).map(x -> Tables.rankedFigure(x, byRatio)).orElse(Estimate.NONE);
            rows.add(new CipherRow(c, e1, e2, Aggregate.find(a, c).isPresent(), Aggregate.find(b, c).isPresent(),
                    byRatio && c.equals(SameRoundRatios.BASELINE)));
        }
        return new Pair(key, first, second, byRatio, order(a, byRatio), order(b, byRatio), rows);
    }

    /** The ciphers with a figure, cheapest first, as the Ranking table has them. */
    private static List<String> order(List<Aggregate> fixed, boolean byRatio) {
        return Tables.rankOrder(fixed, byRatio).stream().filter(x -> Tables.rankedFigure(x, byRatio).known())
                .map(Aggregate::cipher).toList();
    }

    /** Studies in both runs, or in one only, with a figure to compare. */
    public int studies() {
        return (int) pairs.stream().filter(Pair::comparable).count();
    }

    /** Studies in both runs with the same rank order. */
    public int sameOrder() {
        return (int) pairs.stream().filter(Pair::comparable).filter(Pair::sameOrder).count();
    }

    /** Figures compared: every cipher of the paired studies but the ratio's baseline. */
    public int figures() {
        return (int) pairs.stream().filter(p -> p.paired() && p.comparable()).mapToLong(Pair::counted).sum();
    }

    /** Figures of the second run inside the first run's interval. */
    public int inside() {
        return (int) pairs.stream().filter(p -> p.paired() && p.comparable()).mapToLong(Pair::inside).sum();
    }

    /**
     * Whether both goals hold: some study to compare, each in both runs with the same rank order, and
     * every figure of the second run inside the first run's interval.
     */
    public boolean agrees() {
        return studies() > 0 && sameOrder() == studies() && inside() == figures();
    }

    /** The closing line: {@code rank order the same in N of M studies; K of L ratios of the second run inside ...}. */
    public String summary() {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "rank order the same in %d of %d studies; %d of %d ratios of the second run inside the first run's interval",
                sameOrder(), studies(), inside(), figures()));
        List<String> onlyFirst = pairs.stream().filter(p -> p.second() == null).map(p -> p.key().toString()).toList();
        List<String> onlySecond = pairs.stream().filter(p -> p.first() == null).map(p -> p.key().toString()).toList();
        if (!onlyFirst.isEmpty()) {
            b.append("; only in the first run: ").append(String.join(", ", onlyFirst));
        }
        if (!onlySecond.isEmpty()) {
            b.append("; only in the second run: ").append(String.join(", ", onlySecond));
        }
        if (studies() == 0) {
            b.append("; no fixed-rate figures in either run: nothing to compare");
        }
        return b.toString();
    }

    /** The comparison as Markdown: a section and a table per study, then the summary line. */
    public String markdown(String firstName, String secondName) {
        StringBuilder b = new StringBuilder();
        b.append("# Do two runs agree?\n\n");
        b.append(MarkdownReport.inline("First run: " + firstName + " (" + ids(pairs.stream().map(Pair::first).toList())
                + "). Second run: " + secondName + " (" + ids(pairs.stream().map(Pair::second).toList()) + ")."))
                .append("\n\n");
        b.append(MarkdownReport.inline(NOTE)).append('\n');
        for (Pair p : pairs) {
            b.append("\n## ").append(MarkdownReport.inline(p.key().toString())).append("\n\n");
            if (!p.paired()) {
                b.append(p.first() == null ? "Only in the second run (study #" + p.second().id() + "): the first has"
                        : "Only in the first run (study #" + p.first().id() + "): the second has")
                        .append(" no study of this scenario and combination; counted as not agreeing.\n");
                continue;
            }
            if (!p.comparable()) {
                b.append("No fixed-rate figures in either run (ramps only): nothing to compare, not counted.\n");
                continue;
            }
            b.append("- rank order, first run: ").append(MarkdownReport.inline(order(p.firstOrder()))).append('\n');
            b.append("- rank order, second run: ").append(MarkdownReport.inline(order(p.secondOrder()))).append('\n');
            b.append("- the same: ").append(p.sameOrder() ? "yes" : "no").append("\n\n");
            MarkdownReport.table(b, table(p));
            b.append('\n').append(MarkdownReport.inline(figureNote(p))).append('\n');
            if (Tables.mixedEnvironments(List.of(p.first(), p.second()))) {
                b.append("\nThe two studies ran on different JVMs or machines: their figures need not agree.\n");
            }
        }
        b.append("\n## Summary\n\n").append(MarkdownReport.inline(summary())).append('\n');
        return b.toString();
    }

    /** Writes the Markdown to {@code file} whole (its directory created when missing). */
    public static void write(Path file, String markdown) throws IOException {
        ReportFiles.write(file, out -> out.write(markdown));
    }

    /** What the tables show, under the heading. */
    static final String NOTE = "Per study (scenario and handshake combination), each cipher's figure in each run as"
            + " the Ranking table of its report gives it: the server's CPU per call as a ratio to tcp's in the same"
            + " round, mean ± 95 % CI over the rounds, or CPU µs/call ± CI where a study has no tcp baseline. The"
            + " rank orders list the ciphers cheapest first. inside: the second run's mean lies within the first"
            + " run's interval; difference: the second run's mean less the first's, in % of the first's.";

    private static Table table(Pair p) {
        List<List<String>> rows = new ArrayList<>();
        for (CipherRow r : p.rows()) {
            rows.add(List.of(r.cipher(), rank(p.firstOrder(), r.cipher()) + " / " + rank(p.secondOrder(), r.cipher()),
                    figure(r.first(), r.inFirst(), p.byRatio()), figure(r.second(), r.inSecond(), p.byRatio()),
                    r.verdict(), signedPct(r.differencePct())));
        }
        String what = p.byRatio() ? "CPU per call / tcp's ± CI" : "CPU µs/call ± CI";
        return new Table("lrrrlr", List.of("cipher", "rank first / second", "first run: " + what,
                "second run: " + what, "second inside first's interval", "difference"), rows);
    }

    private static String figureNote(Pair p) {
        if (p.byRatio()) {
            return "Compared by the server's CPU per call as a ratio to tcp's in the same round.";
        }
        boolean first = Tables.rankedByRatio(Aggregate.fixed(p.first()));
        boolean second = Tables.rankedByRatio(Aggregate.fixed(p.second()));
        String why = !first && !second ? "neither run's study has a tcp baseline"
                : (first ? "the second" : "the first") + " run's study has no tcp baseline";
        return "Compared by CPU per call, not by the ratio to tcp's: " + why + ".";
    }

    private static String figure(Estimate e, boolean present, boolean byRatio) {
        if (!present) {
            return "not run";
        }
        return byRatio ? Tables.ratio(e) : Tables.est(e);
    }

    private static String rank(List<String> order, String cipher) {
        int i = order.indexOf(cipher);
        return i < 0 ? "-" : Integer.toString(i + 1);
    }

    private static String order(List<String> ciphers) {
        return ciphers.isEmpty() ? "none" : String.join(", ", ciphers);
    }

    /** A difference in % with its sign, 0.0 % without one (no "-0.0 %" for a rounding's crumb). */
    private static String signedPct(double pct) {
        if (!Double.isFinite(pct)) {
            return "n/a";
        }
        return Math.abs(pct) < 0.05 ? "0.0 %" : String.format(Locale.ROOT, "%+.1f %%", pct);
    }

    private static String ids(List<Study> studies) {
        List<String> ids = studies.stream().filter(Objects::nonNull).map(s -> "#" + s.id()).toList();
        return ids.isEmpty() ? "no studies" : "studies " + String.join(", ", ids);
    }
}
