package org.sipcrypt.lab.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.sipcrypt.lab.report.Stats.Estimate;
import org.sipcrypt.lab.report.Tables.Table;
import org.sipcrypt.lab.runner.PeakFraction;
import org.sipcrypt.lab.runner.PeakSearch;
import org.sipcrypt.lab.runner.ServerUnderTest;
import org.sipcrypt.lab.runner.Study;

/**
 * The servers-under-test table of {@code compare --sut sipcrypt,kamailio}: the studies of one scenario
 * and handshake combination on different servers (scenario {@code chain} on sipcrypt, {@code
 * chain-kamailio} on Kamailio), a row per compared name, each server's fixed rate (and under {@code
 * --peak-fraction} the peak it derives from) and CPU per call, and sipcrypt's CPU per call as a ratio
 * to each other server's. The heading says on what basis they compare: at the same fraction of each
 * one's own peak, at one rate, or neither.
 * Threading: immutable (static functions only).
 */
final class CrossServers {

    private CrossServers() {
    }

    /**
     * One server's figures for one compared name: its fixed rate (NaN when it ran none), the peak the
     * rate derives from (NaN without a fraction) and its CPU per call.
     * Threading: immutable.
     */
    record Cell(double rate, double fromPeak, Estimate cpuMicrosPerCall) {

        static final Cell NOT_RUN = new Cell(Double.NaN, Double.NaN, Estimate.NONE);
    }

    /**
     * A compared name's row: a cell per server, and the first server's CPU per call divided by each
     * other one's, with its interval where both have one ({@link Stats#ratio}; unknown where either is).
     * Threading: immutable.
     */
    record Row(String cipher, List<Cell> cells, List<Estimate> ratios) {

        Row {
            cells = List.copyOf(cells);
            ratios = List.copyOf(ratios);
        }
    }

    /**
     * One section: a scenario under one handshake combination on two or more servers (sipcrypt first),
     * the fraction of its own peak every study ran at (0 when they did not all run at one), and the rows.
     * Threading: immutable.
     */
    record Section(String scenario, String combination, List<String> servers, double peakFraction, List<Row> rows) {

        Section {
            servers = List.copyOf(servers);
            rows = List.copyOf(rows);
        }

        /** On what basis the servers compare: equal fractions of their own peaks, one rate, or neither. */
        String basis() {
            if (peakFraction > 0) {
                return "at " + PeakFraction.text(peakFraction) + " of each one's own peak";
            }
            boolean oneRate = rows.stream().allMatch(r -> r.cells().stream().mapToDouble(Cell::rate)
                    .filter(Double::isFinite).distinct().count() <= 1);
            return oneRate ? "at the same rate" : "at the rates shown (neither one rate nor one fraction of each"
                    + " one's own peak)";
        }

        /** The table both reports print. */
        Table table() {
            List<String> header = new ArrayList<>(List.of("cipher"));
            for (String server : servers) {
                header.add(server + " calls/s" + (peakFraction > 0 ? " (of peak)" : ""));
                header.add(server + " CPU µs/call ± CI");
            }
            String first = servers.get(0);
            for (String server : servers.subList(1, servers.size())) {
                header.add("CPU/call " + first + " / " + server);
            }
            List<List<String>> lines = new ArrayList<>();
            for (Row r : rows) {
                List<String> line = new ArrayList<>(List.of(r.cipher()));
                for (Cell c : r.cells()) {
                    if (!Double.isFinite(c.rate())) {
                        line.addAll(List.of("not run", "not run"));
                        continue;
                    }
                    // rates are whole calls per second, peaks found by whole steps and bisections
                    line.add(String.format(Locale.ROOT, "%.0f", c.rate()) + (Double.isFinite(c.fromPeak())
                            ? String.format(Locale.ROOT, " (of %.0f)", c.fromPeak()) : ""));
                    line.add(Tables.est(c.cpuMicrosPerCall()));
                }
                for (Estimate ratio : r.ratios()) {
                    line.add(Tables.ratio(ratio));
                }
                lines.add(line);
            }
            return new Table("l" + "r".repeat(header.size() - 1), header, lines);
        }
    }

    /** What the table says and how its figures are made, under it in both reports. */
    static final String NOTE = "A row per compared name, a pair of columns per server under test (compare --sut),"
            + " each its own study with its own server processes on the same CPUs, generator and UAS. calls/s: the"
            + " rate of its fixed-rate points, under --peak-fraction that fraction of the server's own peak for the"
            + " name, found by its ramp just before them (in brackets, rounded down to tens); CPU µs/call: the"
            + " server's CPU per call, mean ± 95 % CI over its valid repetitions (its study's Fixed rate table)."
            + " CPU/call A / B: A's mean divided by B's, below 1 where A spends less per call, ± the 95 % interval"
            + " of the ratio when both means have one (their relative half-widths added in quadrature, the two"
            + " studies' repetitions taken as independent).";

    /** The heading of a section: {@code Servers under test: chain (1.2/rsa), at 0.5 of each one's own peak}. */
    static String heading(Section s) {
        return "Servers under test: " + s.scenario() + " (" + s.combination() + "), " + s.basis();
    }

    /** A section per scenario and combination (in the order the studies come) run on two or more servers. */
    static List<Section> sections(List<Study> studies) {
        Map<String, Map<String, Study>> groups = new LinkedHashMap<>();
        for (Study s : studies) {
            String key = baseScenario(s) + "\n" + CrossCombinations.combination(s);
            // a server's first study of a scenario and combination stands for it
            groups.computeIfAbsent(key, k -> new LinkedHashMap<>()).putIfAbsent(server(s), s);
        }
        List<Section> out = new ArrayList<>();
        groups.forEach((key, byServer) -> {
            if (byServer.size() > 1) {
                out.add(section(key.substring(0, key.indexOf('\n')), key.substring(key.indexOf('\n') + 1), byServer));
            }
        });
        return out;
    }

    /** The server under test a study ran on: its scenario's suffix ({@code chain-kamailio}), else sipcrypt. */
    static String server(Study s) {
        for (ServerUnderTest sut : ServerUnderTest.values()) {
            if (sut != ServerUnderTest.SIPCRYPT && s.scenario().endsWith("-" + sut.configName())) {
                return sut.configName();
            }
        }
        return ServerUnderTest.SIPCRYPT.configName();
    }

    /** A study's scenario without its server under test's suffix. */
    static String baseScenario(Study s) {
        String server = server(s);
        return server.equals(ServerUnderTest.SIPCRYPT.configName()) ? s.scenario()
                : s.scenario().substring(0, s.scenario().length() - server.length() - 1);
    }

    private static Section section(String scenario, String combination, Map<String, Study> byServer) {
        List<String> servers = new ArrayList<>(byServer.keySet());
        // sipcrypt first, the others as they came: the ratios are sipcrypt's to each other's
        if (servers.remove(ServerUnderTest.SIPCRYPT.configName())) {
            servers.add(0, ServerUnderTest.SIPCRYPT.configName());
        }
        List<String> names = new ArrayList<>();
        for (String server : servers) {
            byServer.get(server).ciphers().stream().filter(c -> !names.contains(c)).forEach(names::add);
        }
        double fraction = byServer.values().iterator().next().peakFraction();
        for (Study s : byServer.values()) {
            if (s.peakFraction() != fraction) {
                fraction = 0;
            }
        }
        Map<String, List<Aggregate>> fixed = new LinkedHashMap<>();
        servers.forEach(server -> fixed.put(server, Aggregate.fixed(byServer.get(server))));
        List<Row> rows = new ArrayList<>();
        for (String name : names) {
            List<Cell> cells = new ArrayList<>();
            for (String server : servers) {
                Study s = byServer.get(server);
                Optional<Aggregate> a = Aggregate.find(fixed.get(server), name);
                cells.add(a.isEmpty() ? Cell.NOT_RUN : new Cell(a.get().offeredCps(),
                        s.fractionPeak(name).map(PeakSearch::peakRate).orElse(Double.NaN), a.get().cpuMicrosPerCall()));
            }
            List<Estimate> ratios = new ArrayList<>();
            for (Cell other : cells.subList(1, cells.size())) {
                ratios.add(Stats.ratio(cells.get(0).cpuMicrosPerCall(), other.cpuMicrosPerCall()));
            }
            rows.add(new Row(name, cells, ratios));
        }
        return new Section(scenario, combination, servers, fraction, rows);
    }
}
