package org.sipcrypt.lab.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.lab.report.Stats.Estimate;
import org.sipcrypt.lab.report.Tables.Table;
import org.sipcrypt.lab.runner.Environment;
import org.sipcrypt.lab.runner.Handshake;
import org.sipcrypt.lab.runner.HandshakeMatrix;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.ServerHandshakes;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.scenario.ScenarioFiles;

/**
 * The cross-combination table of {@code compare --handshakes}: the studies of one scenario that ran
 * under different handshake combinations, a row per study (combination), and per compared cipher its
 * server CPU per call as a ratio to tcp's in the same round ({@link SameRoundRatios}), an estimate of
 * the server's CPU per handshake ({@link SameRoundRatios#perHandshake}), the median latency of its
 * full handshakes and the size of its ClientHello (the per-study Handshake table's data). A cipher
 * a combination skipped says so, and why, under the table.
 * Threading: immutable (static functions only).
 */
final class CrossCombinations {

    private CrossCombinations() {
    }

    /**
     * One table's content: the scenario it is about, the table, and a line per cipher a combination
     * skipped.
     * Threading: immutable.
     */
    record Section(String scenario, Table table, List<String> skipped) {

        Section {
            skipped = List.copyOf(skipped);
        }
    }

    /** A section per scenario (in the order the studies come) whose studies ran under two or more combinations. */
    static List<Section> sections(List<Study> studies) {
        Map<String, List<Study>> byScenario = new LinkedHashMap<>();
        for (Study s : studies) {
            byScenario.computeIfAbsent(s.scenario(), k -> new ArrayList<>()).add(s);
        }
        List<Section> out = new ArrayList<>();
        byScenario.forEach((scenario, group) -> {
            if (group.stream().map(CrossCombinations::combination).distinct().count() > 1) {
                out.add(section(scenario, group));
            }
        });
        return out;
    }

    /** The heading of a section. */
    static String heading(Section s) {
        return "Handshake combinations: " + s.scenario();
    }

    private static Section section(String scenario, List<Study> group) {
        List<String> ciphers = new ArrayList<>();
        for (Study s : group) {
            s.ciphers().stream().filter(c -> !ciphers.contains(c) && !HandshakeMatrix.baseline(c)).forEach(ciphers::add);
        }
        List<String> header = new ArrayList<>(List.of("combination", "tcp µs/call"));
        for (String c : ciphers) {
            header.addAll(List.of(c + " CPU/call vs tcp", c + " µs/handshake (est.)", c + " handshake p50 ms",
                    c + " ClientHello bytes"));
        }
        List<List<String>> rows = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (Study s : group) {
            String combination = combination(s);
            List<Aggregate> fixed = Aggregate.fixed(s);
            List<PointRun> points = s.fixed().stream().filter(p -> Aggregate.FIXED.equals(p.mode())).toList();
            Map<String, Estimate> perHandshake = SameRoundRatios.perHandshake(points);
            Map<String, ServerHandshakes> kinds = SameRoundRatios.perHandshakeKinds(points);
            List<String> row = new ArrayList<>(List.of(combination,
                    Aggregate.find(fixed, Tables.TCP).map(a -> Tables.est(a.cpuMicrosPerCall())).orElse("n/a")));
            for (String c : ciphers) {
                if (!s.ciphers().contains(c)) {
                    row.addAll(List.of("skipped", "skipped", "skipped", "skipped"));
                    skipped.add(combination + ": " + c + " skipped: " + skipReason(s, c));
                    continue;
                }
                row.add(Aggregate.find(fixed, c).map(a -> Tables.ratio(a.cpuRatioToTcp())).orElse("n/a"));
                row.add(perHandshakeCell(perHandshake.getOrDefault(c, Estimate.NONE), kinds.get(c)));
                row.add(latencyP50(s, c));
                row.add(Tables.range(Tables.handshakeSizes(s, c, false), TlsFlights::clientHelloBytes));
            }
            rows.add(row);
        }
        return new Section(scenario, new Table("l" + "r".repeat(header.size() - 1), header, rows), skipped);
    }

    /**
     * A study's combination as {@code --handshakes} writes it ({@code 1.3/ecdhe-p256/ecdsa-p256});
     * a study stored before the lab had the choice ran {@code 1.2/rsa}.
     */
    static String combination(Study s) {
        Environment e = s.environment();
        if (e == null) {
            return "1.2/rsa";
        }
        String text = (e.tlsVersion() != null ? e.tlsVersion() : "1.2") + "/"
                + (e.keyExchange() != null ? e.keyExchange() : "rsa");
        if (e.resumption() != null) {
            return text + "/" + e.certificateDescribed() + "/" + e.resumption();
        }
        return e.certificateDescribed().equals(Handshake.Certificate.RSA2048.configName()) ? text
                : text + "/" + e.certificateDescribed();
    }

    /**
     * Why the study's combination skipped a cipher, as {@link HandshakeMatrix} decides it now from the
     * stored combination and the scenario's server settings; a cipher it would run was left out for
     * another reason (the server under test's, or it was not asked for in this study).
     */
    private static String skipReason(Study s, String cipher) {
        try {
            Handshake h = HandshakeMatrix.parseOne(combination(s));
            Map<String, String> server = s.scenarioText() == null ? Map.of()
                    : ScenarioFiles.parse(s.scenarioText(), s.scenario()).server();
            String why = HandshakeMatrix.skipReason(h, cipher, server);
            return why != null ? why : "not run in this study";
        } catch (IllegalArgumentException e) {
            return "not run in this study (" + e.getMessage() + ")";
        }
    }

    /**
     * The estimate with what it divides by: {@code 812 ± 35 (as server, full)}, {@code (mixed)} where
     * no kind of handshake is {@value ServerHandshakes#DOMINANT_PCT} % of them; {@code n/a} alone.
     */
    static String perHandshakeCell(Estimate e, ServerHandshakes kinds) {
        String figure = Tables.est(e);
        return !e.known() || kinds == null || kinds.kind() == null ? figure : figure + " (" + kinds.kind() + ")";
    }

    /** What the table says and how its figures are made, under it in both reports. */
    static final String NOTE = "A row per handshake combination (compare --handshakes), each its own study with its"
            + " own server processes, so a shift of the machine between studies shows in tcp µs/call. CPU/call vs"
            + " tcp: the cipher's server CPU per call as a ratio to tcp's in the same round of the same study, mean"
            + " ± 95 % CI over the rounds (as the Ranking table). µs/handshake (est.): an estimate, not a measurement"
            + " of the handshake alone: per round, (the cipher's server CPU per call − tcp's in the same round) /"
            + " the server's TLS handshakes per call (the generator's connections' and the server's own to the UAS,"
            + " over the completed calls), mean ± CI over the rounds; the difference also holds what the cipher's"
            + " records cost over plaintext, so it is an upper bound of the handshake's own cost. In brackets, what"
            + " it divides by: the kind that is at least 90 % of those handshakes over the rounds (as server or as"
            + " client: the side of the handshake the server took; full or resumed), mixed where none is."
            + " handshake p50 ms:"
            + " the median latency of the generator's full handshakes, ClientHello bytes: its first full"
            + " handshake's ClientHello, as in each study's Handshake table. skipped: the combination has no suite"
            + " for that cipher (listed below).";

    /** The median latency of a cipher's full handshakes over the study's fixed-rate points, in ms; n/a without one. */
    private static String latencyP50(Study s, String cipher) {
        Histogram timed = Tables.handshakeTimes(s, cipher, false);
        return timed.getTotalCount() == 0 ? "n/a" : Tables.num(RunSummary.percentilesMs(timed)[0]);
    }
}
