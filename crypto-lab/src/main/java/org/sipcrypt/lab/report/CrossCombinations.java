package org.sipcrypt.lab.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.HdrHistogram.Histogram;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.lab.report.Stats.Estimate;
import org.sipcrypt.lab.report.Tables.Table;
import org.sipcrypt.lab.runner.Environment;
import org.sipcrypt.lab.runner.Handshake;
import org.sipcrypt.lab.runner.HandshakeMatrix;
import org.sipcrypt.lab.runner.IdleHeap;
import org.sipcrypt.lab.runner.KamailioServer;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.ServerHandshakes;
import org.sipcrypt.lab.runner.ServerUnderTest;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;

/**
 * The cross-combination table of {@code compare --handshakes}: the studies of one scenario that ran
 * under different handshake combinations, a row per study (combination), and per compared cipher the
 * TLS engines the server ran it on, its server CPU per call as a ratio to tcp's in the same round
 * ({@link SameRoundRatios}), an estimate of the server's CPU per handshake
 * ({@link SameRoundRatios#perHandshake}), the median latency of its full handshakes and the size of
 * its ClientHello (the per-study Handshake table's data). A cipher
 * a combination skipped says so, and why, under the table. A section keeps the figures as numbers,
 * from which both reports print the table and the HTML report draws its charts.
 * Threading: immutable (static functions only).
 */
final class CrossCombinations {

    private CrossCombinations() {
    }

    /**
     * One cipher under one combination: its four figures (and which handshakes the estimate per handshake
     * divides by, null when unknown), the server's TLS engines of its points and its heap per idle
     * connection (NaN where not measured), or the reason the combination skipped it.
     * A figure not measured is unknown ({@link Estimate#NONE}, NaN, no handshakes seen, no engines).
     * Threading: immutable.
     */
    record Cell(Estimate ratioToTcp, Estimate cpuMicrosPerHandshake, ServerHandshakes kinds, double handshakeP50Ms,
            List<TlsFlights> fullHandshakes, List<String> serverTlsEngines, String skipReason,
            double idleHeapBytesPerConnection) {

        Cell {
            fullHandshakes = List.copyOf(fullHandshakes);
            serverTlsEngines = List.copyOf(serverTlsEngines);
        }

        /** A cell whose heap per idle connection was not measured. */
        Cell(Estimate ratioToTcp, Estimate cpuMicrosPerHandshake, ServerHandshakes kinds, double handshakeP50Ms,
             List<TlsFlights> fullHandshakes, List<String> serverTlsEngines, String skipReason) {
            this(ratioToTcp, cpuMicrosPerHandshake, kinds, handshakeP50Ms, fullHandshakes, serverTlsEngines, skipReason,
                    Double.NaN);
        }

        static Cell skipped(String reason) {
            return new Cell(Estimate.NONE, Estimate.NONE, null, Double.NaN, List.of(), List.of(), reason);
        }

        boolean isSkipped() {
            return skipReason != null;
        }

        /** The largest ClientHello of the first full handshakes seen, NaN when none was. */
        double clientHelloBytes() {
            OptionalInt largest = fullHandshakes.stream().mapToInt(TlsFlights::clientHelloBytes).max();
            return largest.isPresent() ? largest.getAsInt() : Double.NaN;
        }
    }

    /**
     * One study's row: its combination, tcp's server CPU per call, and a cell per compared cipher.
     * Threading: immutable.
     */
    record Row(String combination, Estimate tcpMicrosPerCall, List<Cell> cells) {

        Row {
            cells = List.copyOf(cells);
        }
    }

    /**
     * One section's content: the scenario it is about, the compared ciphers (baselines aside) and a
     * row per study, in the order the studies come.
     * Threading: immutable.
     */
    record Section(String scenario, List<String> ciphers, List<Row> rows, List<String> notRun) {

        Section(String scenario, List<String> ciphers, List<Row> rows) {
            this(scenario, ciphers, rows, List.of());
        }

        Section {
            ciphers = List.copyOf(ciphers);
            rows = List.copyOf(rows);
            notRun = List.copyOf(notRun);
            for (Row r : rows) {
                if (r.cells().size() != ciphers.size()) {
                    throw new IllegalArgumentException("row " + r.combination() + " has " + r.cells().size()
                            + " cells for " + ciphers.size() + " ciphers");
                }
            }
        }

        /** Whether any cell has a heap per idle connection ({@code compare --idle-connections}). */
        boolean idleMeasured() {
            return rows.stream().flatMap(r -> r.cells().stream())
                    .anyMatch(c -> Double.isFinite(c.idleHeapBytesPerConnection()));
        }

        /** The table both reports print; a column of the heap per idle connection per cipher where measured. */
        Table table() {
            boolean idle = idleMeasured();
            List<String> header = new ArrayList<>(List.of("combination", "tcp µs/call"));
            for (String c : ciphers) {
                header.addAll(List.of(c + " " + Tables.SERVER_ENGINE, c + " CPU/call vs tcp",
                        c + " µs/handshake (est.)", c + " handshake p50 ms", c + " ClientHello bytes"));
                if (idle) {
                    header.add(c + " heap bytes/idle connection");
                }
            }
            List<List<String>> lines = new ArrayList<>();
            for (Row r : rows) {
                List<String> line = new ArrayList<>(List.of(r.combination(), Tables.est(r.tcpMicrosPerCall())));
                for (int i = 0; i < ciphers.size(); i++) {
                    Cell cell = r.cells().get(i);
                    if (cell.isSkipped()) {
                        line.addAll(List.of("skipped", "skipped", "skipped", "skipped", "skipped"));
                        if (idle) {
                            line.add("skipped");
                        }
                        continue;
                    }
                    line.add(Tables.serverEngine(ciphers.get(i), cell.serverTlsEngines()));
                    line.add(Tables.ratio(cell.ratioToTcp()));
                    line.add(perHandshakeCell(cell.cpuMicrosPerHandshake(), cell.kinds()));
                    line.add(Tables.num(cell.handshakeP50Ms()));
                    line.add(Tables.range(cell.fullHandshakes(), TlsFlights::clientHelloBytes));
                    if (idle) {
                        line.add(Tables.bytes(cell.idleHeapBytesPerConnection()));
                    }
                }
                lines.add(line);
            }
            StringBuilder align = new StringBuilder("lr");
            for (int i = 0; i < ciphers.size(); i++) {
                align.append(idle ? "lrrrrr" : "lrrrr");
            }
            return new Table(align.toString(), header, lines);
        }

        /**
         * A line per cipher a combination skipped, saying why: {@code 1.2/rsa: chacha20 skipped: REASON};
         * then a line per combination another server under test ran that this one did not ({@link #notRun}).
         */
        List<String> skipped() {
            List<String> out = new ArrayList<>(notRun);
            for (Row r : rows) {
                for (int i = 0; i < ciphers.size(); i++) {
                    if (r.cells().get(i).isSkipped()) {
                        out.add(r.combination() + ": " + ciphers.get(i) + " skipped: " + r.cells().get(i).skipReason());
                    }
                }
            }
            return out;
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
                Section section = section(scenario, group);
                List<String> notRun = notRun(group, byScenario);
                out.add(notRun.isEmpty() ? section
                        : new Section(section.scenario(), section.ciphers(), section.rows(), notRun));
            }
        });
        return out;
    }

    /**
     * For the studies of a server under test other than sipcrypt ({@code handshakes-kamailio}): a line
     * per combination sipcrypt's studies of the same scenario ran and this server's did not, with why
     * it cannot ({@link KamailioServer#unsupported}): {@code 1.3/x25519mlkem768: not run on kamailio:
     * REASON}. Empty for sipcrypt's own studies.
     */
    private static List<String> notRun(List<Study> group, Map<String, List<Study>> byScenario) {
        String server = CrossServers.server(group.get(0));
        if (server.equals(ServerUnderTest.SIPCRYPT.configName())) {
            return List.of();
        }
        List<Study> sipcrypt = byScenario.getOrDefault(CrossServers.baseScenario(group.get(0)), List.of());
        List<String> ran = group.stream().map(CrossCombinations::combination).toList();
        List<String> out = new ArrayList<>();
        for (Study s : sipcrypt) {
            String combination = combination(s);
            if (!ran.contains(combination) && out.stream().noneMatch(l -> l.startsWith(combination + ":"))) {
                out.add(combination + ": not run on " + server + ": " + notRunReason(s, server));
            }
        }
        return out;
    }

    /** Why the server under test (Kamailio) cannot run sipcrypt's study's combination, as the lab decides it now. */
    private static String notRunReason(Study s, String server) {
        if (!server.equals(ServerUnderTest.KAMAILIO.configName()) || s.scenarioText() == null) {
            return "not run in this comparison";
        }
        try {
            Scenario scenario = ScenarioFiles.parse(s.scenarioText(), s.scenario());
            Handshake h = HandshakeMatrix.parseOne(combination(s));
            for (String cipher : s.ciphers()) {
                String why = KamailioServer.unsupported(scenario, cipher, h);
                if (why != null) {
                    return why;
                }
            }
            return "not run in this comparison";
        } catch (IllegalArgumentException e) {
            return "not run in this comparison (" + e.getMessage() + ")";
        }
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
        List<Row> rows = new ArrayList<>();
        for (Study s : group) {
            List<Aggregate> fixed = Aggregate.fixed(s);
            List<PointRun> points = s.fixed().stream().filter(p -> Aggregate.FIXED.equals(p.mode())).toList();
            Map<String, Estimate> perHandshake = SameRoundRatios.perHandshake(points);
            Map<String, ServerHandshakes> kinds = SameRoundRatios.perHandshakeKinds(points);
            List<Cell> cells = new ArrayList<>();
            for (String c : ciphers) {
                cells.add(!s.ciphers().contains(c) ? Cell.skipped(skipReason(s, c))
                        : new Cell(Aggregate.find(fixed, c).map(Aggregate::cpuRatioToTcp).orElse(Estimate.NONE),
                                perHandshake.getOrDefault(c, Estimate.NONE), kinds.get(c), latencyP50Ms(s, c),
                                Tables.handshakeSizes(s, c, false), Tables.serverEngines(points, c), null,
                                s.idleHeap(c).filter(IdleHeap::valid).map(IdleHeap::bytesPerConnection)
                                        .orElse(Double.NaN)));
            }
            rows.add(new Row(combination(s), Aggregate.find(fixed, Tables.TCP).map(Aggregate::cpuMicrosPerCall)
                    .orElse(Estimate.NONE), cells));
        }
        return new Section(scenario, ciphers, rows);
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
            + " handshake's ClientHello, as in each study's Handshake table. server TLS engine: the engine the server"
            + " under test made the cipher's handshakes on in that study, as in its fixed-rate table (with the"
            + " server's tls.engine on auto it can differ between combinations, and with it what a handshake costs)."
            + " heap bytes/idle connection (with compare --idle-connections): the server's live heap per idle"
            + " connection of the cipher held after its points, as in each study's Heap per idle connection table."
            + " skipped: the combination has no suite for that cipher (listed below).";

    /** The median latency of a cipher's full handshakes over the study's fixed-rate points, in ms; NaN without one. */
    private static double latencyP50Ms(Study s, String cipher) {
        Histogram timed = Tables.handshakeTimes(s, cipher, false);
        return timed.getTotalCount() == 0 ? Double.NaN : RunSummary.percentilesMs(timed)[0];
    }
}
