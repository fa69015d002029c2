package org.sipcrypt.lab.report;

import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.sipcrypt.lab.metrics.CrtBuckets;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.lab.runner.Environment;
import org.sipcrypt.lab.runner.IdleHeap;
import org.sipcrypt.lab.runner.PeakSearch;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.ServerHandshakes;
import org.sipcrypt.lab.runner.ServerSample;
import org.sipcrypt.lab.runner.ServerTlsEngines;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;

/**
 * {@code results.csv}, a row per measured point (fixed points, then every ramp's steps, study by
 * study), and {@code peaks.csv}, a row per ramp, for spreadsheets and statistics tools. RFC 4180:
 * a header row, CRLF line ends, a field holding a comma, quote or line break quoted with its quotes
 * doubled. Numbers are written with {@code .} whatever the locale, in full (the shortest text that
 * reads back as the same double, never with an exponent); unknown values are -1 as in the records.
 * Threading: stateless; runs on the caller's thread.
 */
public final class CsvExport {

    /** The points file's name in a results directory. */
    public static final String POINTS_FILE_NAME = "results.csv";

    /** The ramps file's name in a results directory. */
    public static final String PEAKS_FILE_NAME = "peaks.csv";

    /**
     * The columns of {@value #POINTS_FILE_NAME}. {@code crt_*} counts are calls per
     * {@link CrtBuckets} bucket, {@code heap_after_gc_mb} is in MiB, {@code gc_pause_*} are the
     * server's collector pauses over the measured part (-1 unknown), {@code valid} is false for a
     * point that says nothing about the server (a saturated generator), {@code failure_causes} is
     * {@code cause=count;cause=count} sorted by cause; {@code generator_cpu_us_per_call} and
     * {@code uas_cpu_us_per_call} are the lab's own CPU per call by role (-1 unknown);
     * {@code server_cpu_ratio_to_tcp} is the point's {@code server_cpu_us_per_call} divided by that of the
     * tcp point of the same study, scenario and repetition (round), the figure the reports rank by
     * ({@link SameRoundRatios}), -1 where it is not counted: a ramp's step, an invalid point on either
     * side, no valid tcp point in that round. {@code tls_version}, {@code kx}, {@code cert} and
     * {@code resumption} are the study's handshake ({@code compare --tls-version --kx --cert
     * --resumption}; {@code scenario} where the scenario's legs chose the resumption; empty where the
     * study stored no environment). {@code left_transport} and {@code right_transport} are what the
     * point's legs ran on, generator to server and server to UAS ({@code udp}, {@code tcp}, {@code tls},
     * {@code ws}, {@code wss}: a compared name such as {@code wss:aes} turns every TLS leg into WSS),
     * empty where the study's scenario cannot be read back. {@code client_hello_bytes} and
     * {@code server_flight_bytes} are the ClientHello's and the server's first flight's TLS records
     * (headers included) of the first full handshake the point's generator made, and the
     * {@code *_segments} beside them the TCP segments each takes at Ethernet's MSS, computed as
     * ceil(bytes / 1460) ({@link TlsFlights}); empty where the generator made no TLS handshake (no TLS
     * leg from it, or a point stored before the lab measured them). {@code handshake_p50_ms},
     * {@code handshake_p99_ms} and {@code handshakes_timed} are the median and 99th percentile of the
     * latency of the point's full handshakes whose ClientHello went out after the warm-up, from its
     * first byte written below TLS to the generator's TLS stage reporting the handshake done, and how
     * many there were ({@link RunSummary#handshakeTimes}); empty where none was timed.
     * {@code handshakes_as_server_full_per_call}, {@code handshakes_as_server_resumed_per_call},
     * {@code handshakes_as_client_full_per_call} and {@code handshakes_as_client_resumed_per_call} are
     * the server's TLS handshakes over the measured part per completed call, by the side it took (as
     * TLS server: the generator's connections; as TLS client: its own to the UAS) and kind
     * ({@link ServerHandshakes}), -1 when no call completed. {@code server_tls_engine} names the TLS
     * engines the server under test made its handshakes on ({@link ServerSample#tlsEngines()}):
     * {@code bc}, {@code jsse} or {@code openssl} for sipcrypt, joined by {@code +} when a point saw
     * more than one ({@code bc+jsse}), {@code kamailio-openssl} for Kamailio; empty without a TLS
     * leg, for a target the lab did not start, and where they were not read. {@code peak_fraction} is the share of its
     * own peak a fixed-rate point's rate is ({@code compare --peak-fraction}) and {@code from_peak_rate}
     * the peak it derives from, the cipher's ramp in the same study ({@code rate} is the fraction of it,
     * rounded down to tens); both empty for a point at the scenario's rate and for a ramp's step.
     * {@code idle_connections}, {@code idle_heap_bytes_per_connection} and
     * {@code idle_heap_left_after_closing_bytes_per_connection} are the study's heap per idle
     * connection for the point's cipher ({@code compare --idle-connections}, {@link IdleHeap}): the
     * connections the server counted open while the lab held them, its live heap per connection then,
     * and what was still there per connection after they were closed (TLS sessions kept for
     * resumption); the same on every fixed-rate point of that cipher in the study, empty where it was
     * not measured (not asked, a ramp's step, Kamailio, a run that held none). New columns come last
     * so that readers of the older ones keep working.
     */
    public static final List<String> POINT_COLUMNS = List.of("study_id", "scenario", "cipher", "mode", "repetition",
            "rate", "completed_cps", "failed_pct", "crt_p50_ms", "crt_p90_ms", "crt_p99_ms", "crt_max_ms", "crt_0_30",
            "crt_31_60", "crt_61_90", "crt_91_120", "crt_121_150", "crt_over_150", "kbps", "server_cpu_pct",
            "server_cpu_us_per_call", "heap_after_gc_mb", "gc_pause_total_ms", "gc_pause_max_ms", "generator_cpu_pct",
            "handshakes_per_s", "resumption_pct", "valid", "failure_causes", "generator_cpu_us_per_call",
            "uas_cpu_us_per_call", "server_cpu_ratio_to_tcp", "tls_version", "kx", "cert", "resumption",
            "left_transport", "right_transport", "client_hello_bytes", "client_hello_segments", "server_flight_bytes",
            "server_flight_segments", "handshake_p50_ms", "handshake_p99_ms", "handshakes_timed",
            "handshakes_as_server_full_per_call", "handshakes_as_server_resumed_per_call",
            "handshakes_as_client_full_per_call", "handshakes_as_client_resumed_per_call", "server_tls_engine",
            "peak_fraction", "from_peak_rate", "idle_connections", "idle_heap_bytes_per_connection",
            "idle_heap_left_after_closing_bytes_per_connection");

    /** The columns of {@value #PEAKS_FILE_NAME}; {@code steps} is the number of steps run. */
    public static final List<String> PEAK_COLUMNS = List.of("study_id", "scenario", "cipher", "repetition",
            "peak_rate", "sustainable_rate", "stopped_by", "steps");

    private static final String CRLF = "\r\n";
    private static final double BYTES_PER_MIB = 1024.0 * 1024.0;

    private CsvExport() {
    }

    /**
     * Writes {@value #POINTS_FILE_NAME} and {@value #PEAKS_FILE_NAME} into {@code dir} (created when
     * missing), replacing older ones.
     *
     * @return the files written
     */
    public static List<Path> write(List<Study> studies, Path dir) throws IOException {
        Objects.requireNonNull(studies, "studies");
        Path points = dir.resolve(POINTS_FILE_NAME);
        Path peaks = dir.resolve(PEAKS_FILE_NAME);
        ReportFiles.write(points, out -> writePoints(studies, out));
        ReportFiles.write(peaks, out -> writePeaks(studies, out));
        return List.of(points, peaks);
    }

    /** The rows of {@value #POINTS_FILE_NAME}, header first. */
    public static void writePoints(List<Study> studies, Writer out) throws IOException {
        row(out, POINT_COLUMNS);
        for (Study s : studies) {
            Scenario scenario = scenarioOf(s);
            for (PointRun p : s.fixed()) {
                row(out, pointFields(s, scenario, p, SameRoundRatios.of(p, s.fixed())));
            }
            for (PeakSearch r : s.peaks()) {
                for (PointRun p : r.steps()) {
                    row(out, pointFields(s, scenario, p, Double.NaN));
                }
            }
        }
    }

    /** The rows of {@value #PEAKS_FILE_NAME}, header first. */
    public static void writePeaks(List<Study> studies, Writer out) throws IOException {
        row(out, PEAK_COLUMNS);
        for (Study s : studies) {
            for (PeakSearch r : s.peaks()) {
                row(out, List.of(Long.toString(s.id()), r.scenario(), r.cipher(), Integer.toString(r.repetition()),
                        number(r.peakRate()), number(r.sustainableRate()), r.stoppedBy() == null ? "" : r.stoppedBy(),
                        Integer.toString(r.steps().size())));
            }
        }
    }

    /**
     * @param scenario   the study's scenario, null when it cannot be read back
     * @param ratioToTcp the point's CPU per call to tcp's in the same round, NaN where not counted
     */
    private static List<String> pointFields(Study s, Scenario scenario, PointRun p, double ratioToTcp) {
        RunSummary uac = p.uac();
        List<String> f = new ArrayList<>(POINT_COLUMNS.size());
        f.add(Long.toString(s.id()));
        f.add(p.scenario());
        f.add(p.cipher());
        f.add(p.mode());
        f.add(Integer.toString(p.repetition()));
        f.add(number(p.rate()));
        f.add(number(p.completedPerSecond()));
        f.add(number(uac.failedPct()));
        f.add(number(uac.crtP50Ms()));
        f.add(number(uac.crtP90Ms()));
        f.add(number(uac.crtP99Ms()));
        f.add(number(uac.crtMaxMs()));
        long[] buckets = uac.buckets();
        for (int i = 0; i < CrtBuckets.NAMES.length; i++) {
            f.add(i < buckets.length ? Long.toString(buckets[i]) : "");
        }
        f.add(number(p.kbps()));
        f.add(number(p.server().cpuPercent()));
        f.add(number(p.server().cpuMicrosPerCall()));
        long heap = p.server().heapAfterGcBytes();
        f.add(heap < 0 ? "-1" : number(heap / BYTES_PER_MIB));
        f.add(number(p.server().gcPauseTotalMs()));
        f.add(number(p.server().gcPauseMaxMs()));
        f.add(number(uac.cpuPercent()));
        f.add(number(p.handshakesPerSecond()));
        f.add(number(p.resumptionPct()));
        f.add(Boolean.toString(p.invalid() == null));
        f.add(causes(uac.causes()));
        f.add(number(p.labCpu().generatorMicrosPerCall()));
        f.add(number(p.labCpu().uasMicrosPerCall()));
        f.add(Double.isFinite(ratioToTcp) ? number(ratioToTcp) : "-1");
        Environment e = s.environment();
        if (e == null) {
            f.addAll(List.of("", "", "", ""));
        } else {
            // studies stored before the choices ran TLS 1.2 with RSA key exchange and RSA-2048
            f.add(e.tlsVersion() != null ? e.tlsVersion() : "1.2");
            f.add(e.keyExchange() != null ? e.keyExchange() : "rsa");
            f.add(e.certificateDescribed());
            f.add(e.resumption() != null ? e.resumption() : "scenario");
        }
        f.add(scenario == null ? "" : scenario.left().transportFor(p.cipher()).configName());
        f.add(scenario == null ? "" : scenario.right().transportFor(p.cipher()).configName());
        TlsFlights h = uac.fullHandshake();
        if (h == null) {
            f.addAll(List.of("", "", "", ""));
        } else {
            f.addAll(List.of(Integer.toString(h.clientHelloBytes()), Integer.toString(h.clientHelloSegments()),
                    Integer.toString(h.serverFlightBytes()), Integer.toString(h.serverFlightSegments())));
        }
        Histogram timed = uac.handshakeTimes(false);
        if (timed.getTotalCount() == 0) {
            f.addAll(List.of("", "", ""));
        } else {
            double[] ms = RunSummary.percentilesMs(timed);
            f.addAll(List.of(number(ms[0]), number(ms[2]), Long.toString(timed.getTotalCount())));
        }
        ServerHandshakes.PerCall kinds = p.serverHandshakesPerCall();
        f.addAll(List.of(number(kinds.asServerFull()), number(kinds.asServerResumed()), number(kinds.asClientFull()),
                number(kinds.asClientResumed())));
        f.add(ServerTlsEngines.joined(p.server().tlsEngines()));
        Optional<PeakSearch> from = Aggregate.FIXED.equals(p.mode()) ? s.fractionPeak(p.cipher()) : Optional.empty();
        f.add(from.isPresent() ? number(s.peakFraction()) : "");
        f.add(from.map(r -> number(r.peakRate())).orElse(""));
        Optional<IdleHeap> idle = Aggregate.FIXED.equals(p.mode()) ? s.idleHeap(p.cipher()).filter(IdleHeap::valid)
                : Optional.empty();
        f.add(idle.map(i -> Long.toString(i.connections())).orElse(""));
        f.add(idle.map(i -> number(Math.round(i.bytesPerConnection()))).orElse(""));
        f.add(idle.map(i -> i.after().heapBytes() < 0 ? "" : number(Math.round(i.leftAfterClosingBytesPerConnection())))
                .orElse(""));
        return f;
    }

    /** The study's scenario read back from its stored text, or null when it cannot be. */
    private static Scenario scenarioOf(Study s) {
        try {
            return ScenarioFiles.parse(s.scenarioText(), s.scenario());
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String causes(Map<String, Long> causes) {
        StringJoiner j = new StringJoiner(";");
        for (Map.Entry<String, Long> e : new TreeMap<>(causes).entrySet()) {
            j.add(e.getKey() + "=" + e.getValue());
        }
        return j.toString();
    }

    /** A double in full with a {@code .}, no exponent, whole numbers without decimals. */
    static String number(double d) {
        if (!Double.isFinite(d)) {
            return Double.toString(d);
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
    }

    private static void row(Writer out, List<String> fields) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(field(fields.get(i)));
        }
        out.write(b.append(CRLF).toString());
    }

    /** RFC 4180 §2 rules 6 and 7: quoted when it holds a comma, quote or line break; quotes doubled. */
    static String field(String value) {
        if (value.indexOf(',') < 0 && value.indexOf('"') < 0 && value.indexOf('\r') < 0 && value.indexOf('\n') < 0) {
            return value;
        }
        return '"' + value.replace("\"", "\"\"") + '"';
    }
}
