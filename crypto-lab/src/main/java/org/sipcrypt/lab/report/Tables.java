package org.sipcrypt.lab.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.ToIntFunction;
import org.HdrHistogram.Histogram;
import org.sipcrypt.lab.metrics.CallTimer;
import org.sipcrypt.lab.metrics.CrtBuckets;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.lab.model.ComponentCost;
import org.sipcrypt.lab.model.CostModel;
import org.sipcrypt.lab.model.Prediction;
import org.sipcrypt.lab.report.Aggregate.Peak;
import org.sipcrypt.lab.report.Stats.Estimate;
import org.sipcrypt.lab.runner.Environment;
import org.sipcrypt.lab.runner.HandshakeMatrix;
import org.sipcrypt.lab.runner.IdleHeap;
import org.sipcrypt.lab.runner.PeakFraction;
import org.sipcrypt.lab.runner.PeakSearch;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.RoleCpu;
import org.sipcrypt.lab.runner.ServerTlsEngines;
import org.sipcrypt.lab.runner.Study;

/**
 * The report's tables and sentences as plain text cells, shared by the Markdown and the HTML report
 * so both say the same with the same precision (Locale.ROOT; "n/a" where nothing was measured).
 * Threading: immutable (static functions only).
 */
final class Tables {

    static final String UDP = "udp";
    static final String TCP = "tcp";

    private Tables() {
    }

    /**
     * A table: a header and rows of as many cells, and per column {@code l} (text, aligned left) or
     * {@code r} (numbers, aligned right).
     * Threading: immutable.
     */
    record Table(String align, List<String> header, List<List<String>> rows) {

        Table {
            if (align.length() != header.size() || !align.matches("[lr]*")) {
                throw new IllegalArgumentException("align \"" + align + "\" does not fit " + header);
            }
            header = List.copyOf(header);
            rows = rows.stream().map(List::copyOf).toList();
            for (List<String> r : rows) {
                if (r.size() != header.size()) {
                    throw new IllegalArgumentException("row " + r + " has " + r.size() + " cells, header " + header.size());
                }
            }
        }

        /** Whether column {@code i} holds numbers. */
        boolean numeric(int i) {
            return align.charAt(i) == 'r';
        }
    }

    static Table environment(List<Study> studies) {
        List<List<String>> rows = new ArrayList<>();
        for (Study s : studies) {
            Environment e = s.environment();
            rows.add(e == null ? List.of(s.scenario(), s.started().toString(), "unknown", "unknown", "n/a", "unknown",
                    "unknown", "unknown", "unknown", "unknown", "unknown", "unknown", "unknown")
                    : List.of(s.scenario(), s.started().toString(),
                    known(e.jvm()), known(e.cpuModel()), Integer.toString(e.cores()), known(e.os()), known(e.host()),
                    known(e.labVersion()), known(e.pinning()), e.delayDescribed(), e.handshakeDescribed(),
                    e.certificateDescribed(), e.resumptionDescribed()));
        }
        return new Table("llllrllllllll", List.of("study", "started", "JVM", "CPU", "cores", "OS", "host", "lab",
                "CPU pinning", "network delay", "TLS handshake", "certificate", "resumption"), rows);
    }

    /** Whether the studies ran on more than one kind of machine or JVM (host names aside). */
    static boolean mixedEnvironments(List<Study> studies) {
        return studies.stream().map(s -> s.environment() == null ? "" : s.environment().jvm() + '\n'
                + s.environment().cpuModel() + '\n' + s.environment().cores()).distinct().count() > 1;
    }

    /**
     * A study's heading: its scenario, with its start when another study has the same scenario, and its
     * handshake combination first when those studies ran under different ones ({@code compare --handshakes}).
     */
    static String heading(Study study, List<Study> all) {
        List<Study> same = all.stream().filter(s -> s.scenario().equals(study.scenario())).toList();
        if (same.size() <= 1) {
            return study.scenario();
        }
        boolean combinations = same.stream().map(CrossCombinations::combination).distinct().count() > 1;
        return study.scenario() + " (" + (combinations ? CrossCombinations.combination(study) + ", " : "")
                + study.started() + ")";
    }

    static Table fixed(List<Aggregate> aggregates) {
        Optional<Aggregate> udp = Aggregate.find(aggregates, UDP);
        List<List<String>> rows = new ArrayList<>();
        for (Aggregate a : aggregates) {
            rows.add(List.of(a.cipher(), serverEngine(a.cipher(), a.serverTlsEngines()), num(a.offeredCps()), est(a.completedCps()), num(a.failedPct().mean()),
                    num(a.crtP50Ms().mean()) + " / " + num(a.crtP90Ms().mean()) + " / " + num(a.crtP99Ms().mean()),
                    num(a.kbps().mean()), num(a.serverCpuPct().mean()), flagged(a.cpuPerCallRanked()),
                    widthPct(a.cpuMicrosPerCall()),
                    times(udp.map(a::cpuRatio).orElse(Double.NaN)), times(a.cpuRatioToTcp().mean()),
                    num(a.handshakesPerSecond().mean()), num(a.resumptionPct().mean()), num(a.heapAfterGcMiB().mean()),
                    num(a.gcPauseTotalMs().mean()) + " / " + num(a.gcPauseMaxMs().mean()),
                    num(a.generatorCpuPct().mean()), heavy(a.generatorCpuMicrosPerCall(), a, "generator"),
                    heavy(a.uasCpuMicrosPerCall(), a, "UAS"), a.validRepetitions() + "/" + a.allRepetitions()));
        }
        return new Table("ll" + "r".repeat(18), List.of("cipher", SERVER_ENGINE, "offered cps", "completed cps ± CI", "failed %", "CRT p50 / p90 / p99 ms",
                "kbps", "server CPU %", "CPU µs/call ± CI (± %)", "± % with drift", "CPU vs udp", "CPU vs tcp", "TLS hs/s",
                "resumed %", "heap MiB", "GC pauses total / max ms", "generator CPU %", "generator µs/call", "UAS µs/call",
                "reps valid/all"), rows);
    }

    /** The header of the column naming the server's TLS engines ({@link #serverEngine}). */
    static final String SERVER_ENGINE = "server TLS engine";

    /**
     * The TLS engines the server under test made a cipher's handshakes on, as the tables name them:
     * {@code openssl}, {@code jsse} or {@code bc}; {@code mixed: bc+jsse} where its points saw more than
     * one; {@code OpenSSL (Kamailio)} for Kamailio; {@code —} for a plaintext baseline ({@code udp},
     * {@code tcp}, {@code ws}); {@code n/a} for a TLS cipher whose engines are not known (a target
     * the lab did not start, points stored before the lab read them).
     */
    static String serverEngine(String cipher, List<String> engines) {
        if (engines.isEmpty()) {
            return HandshakeMatrix.baseline(cipher) ? "—" : "n/a";
        }
        if (engines.equals(List.of(ServerTlsEngines.KAMAILIO))) {
            return "OpenSSL (Kamailio)";
        }
        return engines.size() == 1 ? engines.get(0) : "mixed: " + ServerTlsEngines.joined(engines);
    }

    /** What the server TLS engine column says, under the fixed-rate table in both reports. */
    static final String ENGINE_NOTE = "server TLS engine: the TLS engine the server under test made the cipher's"
            + " handshakes on, over all its repetitions: sipcrypt's as its tls.handshakes{engine} counted them (bc,"
            + " jsse or openssl, as its tls.engine chose; mixed: a+b where the points saw more than one), OpenSSL"
            + " (Kamailio) for Kamailio's tls module; — without TLS, n/a where not known.";

    /**
     * Under {@code compare --peak-fraction} (empty without): the sentence that says where the fixed
     * rates come from, then a line per compared name in the study's order, its rate and the peak it
     * derives from ({@code aes: 450/s, 0.5 × its peak of 900/s (its ramp stopped by failures)}), or
     * that it ran no fixed-rate point.
     */
    static List<String> fractionRates(Study s) {
        if (s.peakFraction() == 0) {
            return List.of();
        }
        PeakFraction f = new PeakFraction(s.peakFraction());
        List<String> out = new ArrayList<>();
        out.add("Each cipher's fixed-rate points ran at " + f.text() + " of its own peak on this server, the peak its"
                + " ramp found just before them (the Peak throughput table), rounded down to tens of calls/s: each"
                + " cipher at its own rate, so where the rates differ, CPU vs udp and vs tcp compare different loads.");
        for (String cipher : s.ciphers()) {
            Optional<PeakSearch> ramp = s.fractionPeak(cipher);
            if (ramp.isEmpty()) {
                out.add(cipher + ": no ramp, no fixed-rate point");
                continue;
            }
            PeakSearch r = ramp.get();
            out.add(cipher + ": " + (f.rate(r.peakRate()) > 0 ? "" : "no fixed-rate point, ")
                    + f.describe(r.peakRate()) + " (its ramp stopped by " + r.stoppedBy() + ")");
        }
        return out;
    }

    /** What the fixed-rate table's two baseline columns are, under it in both reports. */
    static final String BASELINE_NOTE = "CPU vs udp: the server's CPU per call as a multiple of udp's, mean against"
            + " mean, in this study. CPU vs tcp: the mean over the rounds of the server's CPU per call as a multiple of"
            + " tcp's in the same round (the ranking's figure).";

    /**
     * The fixed-rate ciphers ranked, cheapest first, by their CPU per call as a ratio to tcp's in the
     * same round ({@link Aggregate#cpuRatioToTcp()}), or by their CPU per call
     * ({@link Aggregate#cpuPerCallRanked()}) when the study has no tcp baseline; a cipher without the
     * figure comes last. "apart from the next" says whether its interval lies wholly below the next
     * cipher's (yes), or the two overlap, so that the run does not tell their order.
     */
    static Table ranking(List<Aggregate> fixed) {
        boolean byRatio = rankedByRatio(fixed);
        List<Aggregate> sorted = rankOrder(fixed, byRatio);
        List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i < sorted.size(); i++) {
            Aggregate a = sorted.get(i);
            Estimate e = rankedFigure(a, byRatio);
            rows.add(List.of(Integer.toString(i + 1), a.cipher(), byRatio ? ratio(e) : est(e), widthPct(e),
                    Integer.toString(e.n()), i + 1 < sorted.size() ? apart(e, rankedFigure(sorted.get(i + 1), byRatio))
                            : ""));
        }
        return new Table("rlrrrl", List.of("rank", "cipher", byRatio ? "CPU per call / tcp's, same round ± CI"
                : "CPU µs/call ± CI", "± %", byRatio ? "rounds" : "repetitions", "apart from the next"), rows);
    }

    /** Whether {@link #ranking} ranks by the ratio to tcp: some cipher of the study has it. */
    static boolean rankedByRatio(List<Aggregate> fixed) {
        return fixed.stream().anyMatch(a -> a.cpuRatioToTcp().known());
    }

    /**
     * The aggregates cheapest first by the ratio to tcp ({@code byRatio}) or by the CPU per call, as
     * {@link #ranking} orders them: a cipher without the figure last, equal figures in the study's order.
     */
    static List<Aggregate> rankOrder(List<Aggregate> fixed, boolean byRatio) {
        List<Aggregate> sorted = new ArrayList<>(fixed);
        sorted.sort(java.util.Comparator.comparingDouble(a -> {
            double v = rankedFigure(a, byRatio).mean();
            return Double.isFinite(v) ? v : Double.MAX_VALUE;
        }));
        return sorted;
    }

    /** The figure {@link #ranking} ranks by: the ratio to tcp ({@code byRatio}) or the CPU per call. */
    static Estimate rankedFigure(Aggregate a, boolean byRatio) {
        return byRatio ? a.cpuRatioToTcp() : a.cpuPerCallRanked();
    }

    /** Whether {@code e}'s interval lies wholly below {@code next}'s: yes, no (they overlap), or n/a. */
    private static String apart(Estimate e, Estimate next) {
        if (!e.hasInterval() || !next.hasInterval()) {
            return "n/a";
        }
        return e.mean() + e.halfWidth95() < next.mean() - next.halfWidth95() ? "yes" : "no: the intervals overlap";
    }

    /** The sentence under {@link #ranking}: which figure ranks the ciphers, and what its interval holds. */
    static String rankingNote(List<Aggregate> fixed) {
        if (rankedByRatio(fixed)) {
            return "Ranked by each cipher's server CPU per call as a ratio to tcp's in the same round (cheapest first):"
                    + " the mean over the rounds in which both points were valid, ± the 95 % confidence interval over"
                    + " those rounds' ratios (Student's t). A shift of the machine between rounds moves both points of a"
                    + " round and cancels in their ratio. With a fresh server per repetition (compare --fresh-servers;"
                    + " the environment's CPU pinning column says how the servers ran) the interval also covers what"
                    + " differs from one server JVM to the next; with one warm server per cipher it does not.";
        }
        return "Ranked by CPU µs/call ± CI, the fixed-rate table's figure (cheapest first): this study has no tcp"
                + " baseline, so there is no ratio to tcp's in the same round to rank by.";
    }

    /** A ratio estimate as a multiple with its interval: ×1.142 ± 0.021; n/a when unknown. */
    static String ratio(Estimate e) {
        if (!e.known()) {
            return "n/a";
        }
        return e.hasInterval() ? String.format(Locale.ROOT, "×%.3f ± %.3f", e.mean(), e.halfWidth95()) : times(e.mean());
    }

    /** What the lab's CPU per call by role means, under the fixed-rate table in both reports. */
    static final String LAB_CPU_NOTE = "generator / UAS µs/call: the lab's own CPU per completed call by role. With"
            + " the generator in the lab's process, its figure is the process's CPU less the UAS's threads' and less"
            + " its JIT compiler's (as the server's is counted), so it includes the lab JVM's garbage collector: an"
            + " upper bound. generator CPU % is in % of one core, in the lab's process the UAS's with it.";

    /** The flag of a role's CPU per call above {@link RoleCpu#MAX_SHARE_OF_SERVER} of the server's. */
    static final String HEAVY = "HEAVY";

    /** A role's mean CPU per call, flagged {@link #HEAVY} when above a third of the server's. */
    private static String heavy(Estimate role, Aggregate a, String name) {
        return num(role.mean()) + (a.labRolesOverShare().contains(name) ? " " + HEAVY : "");
    }

    /**
     * One line per cipher whose generator or UAS cost more than {@link RoleCpu#MAX_SHARE_OF_SERVER}
     * of the server's CPU per call, naming the role and its share of the server's
     * ({@code aes, server 470 µs/call: generator 210 µs/call (45 %)}), empty when none did.
     */
    static List<String> heavyLab(List<Aggregate> fixed) {
        List<String> lines = new ArrayList<>();
        for (Aggregate a : fixed) {
            List<String> over = a.labRolesOverShare();
            if (over.isEmpty()) {
                continue;
            }
            double server = a.cpuMicrosPerCall().mean();
            List<String> parts = new ArrayList<>();
            for (String role : over) {
                double v = role.equals("generator") ? a.generatorCpuMicrosPerCall().mean()
                        : a.uasCpuMicrosPerCall().mean();
                parts.add(String.format(Locale.ROOT, "%s %s µs/call (%.0f %%)", role, num(v), v * 100 / server));
            }
            lines.add(a.cipher() + ", server " + num(server) + " µs/call: " + String.join("; ", parts));
        }
        return lines;
    }

    /** Whether any cipher's generator or UAS CPU per call can be set against its server's. */
    private static boolean labCpuComparable(List<Aggregate> fixed) {
        return fixed.stream().anyMatch(a -> a.cpuMicrosPerCall().known()
                && (a.generatorCpuMicrosPerCall().known() || a.uasCpuMicrosPerCall().known()));
    }

    /**
     * The sentence under the table when no role is flagged {@link #HEAVY}; null when no role's CPU
     * per call could be set against the server's.
     */
    static String labCpuWithinShare(List<Aggregate> fixed) {
        return labCpuComparable(fixed) ? "The generator's and the UAS's CPU per call are within a third of the"
                + " server's for every cipher where both were measured." : null;
    }

    /** The heading of the list of {@link #heavyLab} lines. */
    static final String HEAVY_HEADING = HEAVY + ": the generator's or the UAS's CPU per call is more than a third of"
            + " the server's, so the lab may have limited the run (the lab's aim is a third at most):";

    static Table crtBuckets(List<Aggregate> aggregates) {
        List<String> header = new ArrayList<>(List.of("cipher"));
        for (String b : CrtBuckets.NAMES) {
            header.add(b + " ms %");
        }
        header.add("calls");
        List<List<String>> rows = new ArrayList<>();
        for (Aggregate a : aggregates) {
            List<String> row = new ArrayList<>(List.of(a.cipher()));
            for (double p : a.crtBucketPercents()) {
                row.add(Double.isNaN(p) ? "n/a" : String.format(Locale.ROOT, "%.1f", p));
            }
            long calls = 0;
            for (long c : a.crtBucketCounts()) {
                calls += c;
            }
            row.add(Long.toString(calls));
            rows.add(row);
        }
        return new Table("l" + "r".repeat(header.size() - 1), header, rows);
    }

    /**
     * The sizes and latencies of the generator's TLS handshakes per cipher (in the study's order) and
     * kind, full then resumed, with the server's TLS engines of the cipher ({@link #serverEngine}, over
     * its points, fixed and ramp steps). Sizes over every point of the study, fixed and ramp steps: a range
     * where the points differ (a signature's length does). Latencies (median and 99th percentile in
     * ms, and how many were timed) from the fixed-rate points' histograms added up: a ramp's steps
     * climb to rates where queues, not the handshake, set the time. "n/a" where a kind has no sizes
     * or none was timed (none in a measured part, or points stored before the lab timed them); no
     * rows when no point made a TLS handshake from the generator.
     */
    static Table handshakes(Study s) {
        List<PointRun> points = new ArrayList<>(s.fixed());
        s.peaks().forEach(r -> points.addAll(r.steps()));
        Environment e = s.environment();
        String combination = e == null ? "unknown" : e.handshakeDescribed() + ", " + e.certificateDescribed();
        List<String> ciphers = new ArrayList<>(s.ciphers());
        points.stream().map(PointRun::cipher).filter(c -> !ciphers.contains(c)).distinct().forEach(ciphers::add);
        List<List<String>> rows = new ArrayList<>();
        for (String cipher : ciphers) {
            for (boolean resumed : new boolean[] {false, true}) {
                List<TlsFlights> seen = handshakeSizes(s, cipher, resumed);
                Histogram timed = handshakeTimes(s, cipher, resumed);
                if (seen.isEmpty() && timed.getTotalCount() == 0) {
                    continue;
                }
                List<String> row = new ArrayList<>(List.of(cipher, serverEngine(cipher, serverEngines(points, cipher)),
                        combination, resumed ? "resumed" : "full",
                        range(seen, TlsFlights::clientHelloBytes), range(seen, TlsFlights::clientHelloSegments),
                        range(seen, TlsFlights::serverFlightBytes), range(seen, TlsFlights::serverFlightSegments)));
                if (timed.getTotalCount() == 0) {
                    row.addAll(List.of("n/a", "n/a", "n/a"));
                } else {
                    double[] ms = RunSummary.percentilesMs(timed);
                    row.addAll(List.of(num(ms[0]), num(ms[2]), Long.toString(timed.getTotalCount())));
                }
                rows.add(row);
            }
        }
        return new Table("llllrrrrrrr", List.of("cipher", SERVER_ENGINE, "TLS handshake", "kind", "ClientHello bytes",
                "ClientHello segments", "server flight bytes", "server flight segments", "latency p50 ms",
                "latency p99 ms", "timed"), rows);
    }

    /** The server's TLS engines over {@code points} of {@code cipher}, taken together. */
    static List<String> serverEngines(List<PointRun> points, String cipher) {
        return ServerTlsEngines.union(points.stream().filter(p -> p.cipher().equals(cipher))
                .map(p -> p.server().tlsEngines()).toList());
    }

    /**
     * The first handshake of that kind of every point of {@code cipher} in the study, fixed and ramp
     * steps, where the generator measured one.
     */
    static List<TlsFlights> handshakeSizes(Study s, String cipher, boolean resumed) {
        List<PointRun> points = new ArrayList<>(s.fixed());
        s.peaks().forEach(r -> points.addAll(r.steps()));
        return points.stream().filter(p -> p.cipher().equals(cipher))
                .map(p -> resumed ? p.uac().resumedHandshake() : p.uac().fullHandshake())
                .filter(Objects::nonNull).toList();
    }

    /** The latencies of that kind of handshake over the study's fixed-rate points of {@code cipher}, added up. */
    static Histogram handshakeTimes(Study s, String cipher, boolean resumed) {
        Histogram timed = CallTimer.newHistogram();
        s.fixed().stream().filter(p -> p.cipher().equals(cipher))
                .forEach(p -> timed.add(p.uac().handshakeTimes(resumed)));
        return timed;
    }

    /** {@code 1420}, or {@code 1418–1420} where the values differ; "n/a" when nothing was seen. */
    static String range(List<TlsFlights> seen, ToIntFunction<TlsFlights> value) {
        if (seen.isEmpty()) {
            return "n/a";
        }
        int min = seen.stream().mapToInt(value).min().orElseThrow();
        int max = seen.stream().mapToInt(value).max().orElseThrow();
        return min == max ? Integer.toString(min) : min + "–" + max;
    }

    /**
     * The server's heap per idle connection per cipher of the study ({@link IdleHeap}), in the study's
     * order: the transport and the server's TLS engine, connections it counted open while held, live heap
     * and objects per connection, what was left per connection after closing, resident-set growth
     * per connection, how long opening took and how many failed; the reason instead where nothing
     * counts. No rows when it was not measured.
     */
    static Table idleHeap(Study s) {
        List<IdleHeap> all = new ArrayList<>();
        s.ciphers().forEach(c -> s.idleHeap(c).ifPresent(all::add));
        s.idle().stream().filter(h -> !all.contains(h)).forEach(all::add);
        List<List<String>> rows = new ArrayList<>();
        for (IdleHeap h : all) {
            String engine = h.tlsEngines().isEmpty() ? "—" : ServerTlsEngines.joined(h.tlsEngines());
            String opened = String.format(Locale.ROOT, "%.1f", h.openSeconds());
            String failed = h.failed() + " of " + h.asked();
            if (!h.valid()) {
                String why = h.invalid() != null ? h.invalid() : "the server counted no connection open";
                rows.add(List.of(h.cipher(), h.transport(), engine, "not measured: " + why, "n/a", "n/a", "n/a", "n/a",
                        opened, failed));
                continue;
            }
            rows.add(List.of(h.cipher(), h.transport(), engine, Long.toString(h.connections()),
                    bytes(h.bytesPerConnection()), num(h.objectsPerConnection()),
                    bytes(h.leftAfterClosingBytesPerConnection()), bytes(h.rssBytesPerConnection()), opened, failed));
        }
        return new Table("lllrrrrrrr", List.of("cipher", "transport", SERVER_ENGINE, "connections held (server)",
                "heap bytes/connection", "objects/connection", "left after closing bytes/connection",
                "RSS growth bytes/connection", "opened in s", "failed"), rows);
    }

    /**
     * A byte figure rounded to whole bytes with thousands separators, "n/a" when unknown (-1 or not a
     * number; negative growth is shown).
     */
    static String bytes(double v) {
        return v == -1 || !Double.isFinite(v) ? "n/a" : String.format(Locale.ROOT, "%,d", Math.round(v));
    }

    /** What the idle-connection table says and how it was measured, under it in both reports. */
    static final String IDLE_NOTE = "Heap per idle connection (compare --idle-connections N): after a cipher's"
            + " fixed-rate points, on its server, the lab reads the server's live heap and objects after a full"
            + " collection (jcmd GC.class_histogram), its resident set and its own count of open connections; opens"
            + " N connections on the left leg's transport from the generator's side (TLS: a full handshake each, no"
            + " session offered, as from N clients; then one OPTIONS answered, then silent); reads the server again"
            + " with them held, closes them and reads it a third time, 2 s after each change. Per connection is the"
            + " growth divided by the connections the server counted open. Left after closing: what outlives the"
            + " connections (the TLS sessions the server keeps for resumption, up to tls.sessionCacheSize). RSS"
            + " growth: off the heap, which is touched at start (the openssl engine's BoringSSL state is native"
            + " memory); the kernel's socket buffers are counted nowhere here. sipcrypt servers the lab starts only.";

    /** What the handshake table says and how it was measured, under it in both reports. */
    static final String HANDSHAKE_NOTE = "The first full and the first resumed TLS handshake of each point on the"
            + " generator's connections, read below TLS: the ClientHello's records and the server's first flight's"
            + " (ServerHello to ServerHelloDone in TLS 1.2, to the server's Finished in TLS 1.3, or to its Finished"
            + " when resumed; counted by record length, not decrypted), 5-byte record headers included; a range where"
            + " the points differ. Segments are computed, not captured: ceil(bytes / 1460), the TCP segments of a"
            + " flight written at once at Ethernet's MSS of 1,460 bytes (loopback's MSS would hide them). Latency:"
            + " from the ClientHello's first byte written below TLS to the generator's TLS stage reporting the"
            + " handshake done, for every handshake of that kind whose ClientHello went out after the warm-up, over"
            + " the fixed-rate points (timed: how many); on loopback it is the CPU time of both sides and their"
            + " scheduling, and a one-way delay adds its round trips. server TLS engine: as in the fixed-rate table,"
            + " over the cipher's points, ramp steps included.";

    static Table peaks(List<Peak> peaks) {
        Optional<Peak> udp = Peak.find(peaks, UDP);
        Optional<Peak> tcp = Peak.find(peaks, TCP);
        List<List<String>> rows = new ArrayList<>();
        for (Peak p : peaks) {
            rows.add(List.of(p.cipher(), (p.lowerBound() ? "≥ " : "") + est(p.peakCps()), est(p.sustainableCps()),
                    pct(udp.map(p::peakRatio).orElse(Double.NaN)), pct(tcp.map(p::peakRatio).orElse(Double.NaN)),
                    p.validRamps() + "/" + p.allRamps(), p.limit().describe()));
        }
        return new Table("lrrrrrl", List.of("cipher", "peak cps ± CI", "sustainable cps ± CI", "peak vs udp", "peak vs tcp",
                "ramps valid/all", "limited by (CPU busy at the first failing step)"), rows);
    }

    /** One sentence per repetition or ramp left out of the means, and per peak that is a lower bound. */
    static List<String> exclusions(List<Aggregate> aggregates, List<Peak> peaks) {
        List<String> out = new ArrayList<>();
        for (Aggregate a : aggregates) {
            for (PointRun p : a.invalidRuns()) {
                out.add(String.format(Locale.ROOT, "%s repetition %d at %s cps: invalid (%s); left out of the means",
                        p.cipher(), p.repetition(), num(p.rate()), p.invalid()));
            }
        }
        for (Peak p : peaks) {
            for (PeakSearch r : p.excludedRamps()) {
                out.add(String.format(Locale.ROOT, "%s ramp %d: stopped by a %s at %s cps; left out of the peak",
                        r.cipher(), r.repetition(), r.stoppedBy(), num(r.peakRate())));
            }
            if (p.lowerBound()) {
                out.add(p.cipher() + ": a ramp ended before calls failed (its last step or time budget), so the"
                        + " server's peak is at least the rate shown");
            }
        }
        return out;
    }

    /** What the literature measured for a preset, to compare with, or null. */
    static String reference(String scenario) {
        return CostModel.CHAIN.equals(scenario) ? "The literature's proxy chain without authentication: TCP ≈ 47 % of"
                + " UDP, TLS-AES ≈ 60 % of TCP, TLS-3DES ≈ 47 % of TCP (peak throughput)." : null;
    }

    /** What the peak table's two rates mean, under it in both reports. */
    /** What the fixed-rate table's two CPU-per-call intervals are. */
    static final String CPU_NOTE = "CPU µs/call ± CI: every cipher is measured once per round and the rounds follow"
            + " each other; each cipher's windows are regressed on its round's shift as the other ciphers show it"
            + " (the machine's speed, the generator's timing), and the interval is that of its mean with what the"
            + " shifts explain taken out: how well this run tells the ciphers apart. ± % with drift: the plain"
            + " interval over the windows, shifts included. On one warm server per cipher neither covers what"
            + " differs from one server JVM to the next. Without two ciphers and five complete rounds both are the"
            + " plain interval.";

    static final String PEAK_NOTE = "Peak: highest offered rate with under 1 % of calls failed; sustainable: highest"
            + " rate whose completed rate kept up with it (0: no step kept up; a ramp does not search below its start).";

    static Table components(CostModel.Result model) {
        List<List<String>> rows = new ArrayList<>();
        for (ComponentCost c : model.components()) {
            rows.add(List.of(c.kind().label(), c.cipher() == null ? "any" : c.cipher(), num(c.cpuMicrosPerCall()),
                    c.derivation()));
        }
        return new Table("llrl", List.of("component", "cipher", "CPU µs/call", "from"), rows);
    }

    static Table predictions(CostModel.Result model) {
        List<List<String>> rows = new ArrayList<>();
        for (Prediction p : model.predictions()) {
            rows.add(List.of(p.scenario() + " " + p.cipher(), p.fitted() ? "fitted" : "held out",
                    num(p.predictedCpuMicrosPerCall()), num(p.measuredCpuMicrosPerCall()), signed(p.cpuErrorPct()),
                    num(p.predictedPeakCps()), num(p.measuredPeakCps()), signed(p.peakErrorPct())));
        }
        return new Table("llrrrrrr", List.of("scenario and cipher", "used", "CPU µs/call predicted", "measured", "error %",
                "peak cps predicted", "measured", "error %"), rows);
    }

    /** The calibration and the held-out error, as sentences. */
    static List<String> modelSummary(CostModel.Result model) {
        List<String> out = new ArrayList<>();
        out.add(Double.isNaN(model.peakCpuMicrosPerSecond()) ? "Not calibrated: no peak is predicted."
                : "Calibration K = " + num(model.peakCpuMicrosPerSecond()) + " server CPU µs per second at peak"
                + " (median of measured peak × CPU per call over chain, outbound and inbound); predicted peak ="
                + " K / predicted CPU per call.");
        out.add("Fitted from: " + (model.fittedScenarios().isEmpty() ? "nothing" : String.join(", ",
                model.fittedScenarios())) + ".");
        out.add("Mean absolute error over held-out predictions: peak " + pctText(model.heldOutPeakErrorPct())
                + ", CPU per call " + pctText(model.heldOutCpuErrorPct())
                + " (the aim is 10 %; the literature's model reached 15 %).");
        return out;
    }

    /** A number with precision by magnitude: 1234, 12.3, 1.23; "n/a" when unknown. */
    static String num(double v) {
        if (!Double.isFinite(v)) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%." + decimals(v) + "f", v);
    }

    /** Mean ± half-width at the mean's precision; the mean alone without an interval. */
    static String est(Estimate e) {
        if (!e.known()) {
            return "n/a";
        }
        if (!e.hasInterval()) {
            return num(e.mean());
        }
        int d = decimals(e.mean());
        return String.format(Locale.ROOT, "%." + d + "f ± %." + d + "f", e.mean(), e.halfWidth95());
    }

    /**
     * How wide a CPU-per-call interval may be, in % of its mean either way, for the point to compare
     * cipher suites by: points beyond it are flagged in the tables and listed under the table.
     */
    static final double PRECISION_PCT = 5.0;

    /** An estimate with its interval's width in % of the mean, flagged {@code WIDE} beyond {@link #PRECISION_PCT}. */
    static String flagged(Estimate e) {
        if (!e.known() || !e.hasInterval()) {
            return est(e) + (e.known() ? " (no CI) WIDE" : "");
        }
        double w = e.halfWidthPct();
        String pct = Double.isNaN(w) ? "" : String.format(Locale.ROOT, " (±%.1f %%)", w);
        return est(e) + pct + (e.widerThan(PRECISION_PCT) ? " WIDE" : "");
    }

    /** An interval's half-width in % of its mean: ±4.2 %; n/a without one. */
    static String widthPct(Estimate e) {
        double w = e.halfWidthPct();
        return Double.isNaN(w) ? "n/a" : String.format(Locale.ROOT, "±%.1f %%", w);
    }

    /**
     * One line per fixed-rate point whose CPU-per-call interval is wider than {@link #PRECISION_PCT},
     * empty when every point is precise enough to compare cipher suites by.
     */
    static List<String> imprecise(List<Aggregate> fixed) {
        List<String> lines = new ArrayList<>();
        for (Aggregate a : fixed) {
            Estimate e = a.cpuPerCallRanked();
            if (e.widerThan(PRECISION_PCT)) {
                lines.add(a.cipher() + ": " + (e.hasInterval()
                        ? String.format(Locale.ROOT, "±%.1f %% of the mean", e.halfWidthPct())
                        : "one valid repetition, no interval"));
            }
        }
        return lines;
    }

    /** A ratio as a multiple: ×1.70. */
    static String times(double ratio) {
        return Double.isFinite(ratio) ? String.format(Locale.ROOT, "×%.2f", ratio) : "n/a";
    }

    /** A ratio in percent: 47 %. */
    static String pct(double ratio) {
        return Double.isFinite(ratio) ? String.format(Locale.ROOT, "%.0f %%", ratio * 100) : "n/a";
    }

    private static String pctText(double percent) {
        return Double.isFinite(percent) ? String.format(Locale.ROOT, "%.1f %%", percent) : "n/a (nothing held out was"
                + " measured)";
    }

    private static String signed(double percent) {
        return Double.isFinite(percent) ? String.format(Locale.ROOT, "%+.1f", percent) : "n/a";
    }

    private static String known(String text) {
        return text == null ? "unknown" : text;
    }

    private static int decimals(double v) {
        double a = Math.abs(v);
        return a >= 100 ? 0 : a >= 10 ? 1 : 2;
    }
}
