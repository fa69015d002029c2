package org.sipcrypt.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.lab.runner.IdleHeap;
import org.sipcrypt.lab.runner.PeakSearch;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.ServerTlsEngines;
import org.sipcrypt.lab.runner.Studies;
import org.sipcrypt.lab.runner.Study;

/** results.csv and peaks.csv read back by an RFC 4180 reader. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CsvExportTest {

    @TempDir
    Path dir;

    private static final String SCENARIO = "chain, \"tls\"";

    private static List<Study> studies() {
        return List.of(Studies.study(SCENARIO, List.of("aes", "udp"), 200, 500, 250).withId(7),
                Studies.study("inbound", List.of("seed"), 50, 900).withId(8));
    }

    private static int points(List<Study> studies) {
        int n = 0;
        for (Study s : studies) {
            n += s.fixed().size() + s.peaks().stream().mapToInt(r -> r.steps().size()).sum();
        }
        return n;
    }

    private static List<List<String>> write(List<Study> studies, Path out, String file) throws IOException {
        Locale before = Locale.getDefault();
        // a locale whose decimal separator is a comma: the files must not follow it
        Locale.setDefault(Locale.GERMANY);
        try {
            List<Path> written = CsvExport.write(studies, out);
            assertEquals(List.of(out.resolve(CsvExport.POINTS_FILE_NAME), out.resolve(CsvExport.PEAKS_FILE_NAME)),
                    written);
        } finally {
            Locale.setDefault(before);
        }
        return Rfc4180.parse(Files.readString(out.resolve(file)));
    }

    private static String cell(List<String> header, List<String> row, String column) {
        return row.get(header.indexOf(column));
    }

    @Test
    void eachRowSaysTheTransportOfEachLegAsTheComparedNameTurnedIt() throws IOException {
        // chain's legs are both tls: ws and wss:aes turn them into WebSocket, tcp into TCP
        List<Study> studies = List.of(Studies.study(SCENARIO, List.of("tcp", "ws", "aes", "wss:aes"), 200,
                500, 520, 600, 640).withId(9));
        List<List<String>> rows = write(studies, dir.resolve("ws"), CsvExport.POINTS_FILE_NAME);
        List<String> header = rows.get(0);
        Map<String, String> byCipher = new TreeMap<>();
        for (List<String> row : rows.subList(1, rows.size())) {
            byCipher.put(cell(header, row, "cipher"), cell(header, row, "left_transport") + ">"
                    + cell(header, row, "right_transport"));
        }
        assertEquals(Map.of("tcp", "tcp>tcp", "ws", "ws>ws", "aes", "tls>tls", "wss:aes", "wss>wss"), byCipher);
    }

    @Test
    void resultsHaveAHeaderAndOneRowPerFixedPointAndRampStep() throws IOException {
        List<Study> studies = studies();
        List<List<String>> rows = write(studies, dir.resolve("out"), CsvExport.POINTS_FILE_NAME);
        List<String> header = rows.get(0);
        assertEquals(CsvExport.POINT_COLUMNS, header);
        assertEquals(List.of("crt_0_30", "crt_31_60", "crt_61_90", "crt_91_120", "crt_121_150", "crt_over_150"),
                header.subList(header.indexOf("crt_0_30"), header.indexOf("crt_over_150") + 1));
        // the lab's CPU per call by role, the ratio to tcp and the handshake came later: appended, so
        // readers of the older columns keep working
        assertEquals(List.of("valid", "failure_causes", "generator_cpu_us_per_call", "uas_cpu_us_per_call",
                "server_cpu_ratio_to_tcp", "tls_version", "kx", "cert", "resumption", "left_transport",
                "right_transport", "client_hello_bytes", "client_hello_segments", "server_flight_bytes",
                "server_flight_segments", "handshake_p50_ms", "handshake_p99_ms", "handshakes_timed",
                "handshakes_as_server_full_per_call", "handshakes_as_server_resumed_per_call",
                "handshakes_as_client_full_per_call", "handshakes_as_client_resumed_per_call", "server_tls_engine",
                "peak_fraction", "from_peak_rate", "idle_connections", "idle_heap_bytes_per_connection",
                "idle_heap_left_after_closing_bytes_per_connection"), header.subList(header.size() - 28, header.size()));
        // a study stored before the handshake choices ran TLS 1.2, RSA key exchange, RSA-2048
        assertEquals(List.of("1.2", "rsa", "rsa2048", "scenario"), rows.get(1).subList(header.size() - 23, header.size() - 19));
        assertEquals(List.of("tls", "tls"), rows.get(1).subList(header.size() - 19, header.size() - 17), "aes on both TLS legs");
        // and before the lab measured handshake sizes and latencies
        assertEquals(List.of("", "", "", "", "", "", ""), rows.get(1).subList(header.size() - 17, header.size() - 10));
        // the fixture's points made no handshake: none of any kind per call
        assertEquals(List.of("0", "0", "0", "0"), rows.get(1).subList(header.size() - 10, header.size() - 6));
        // and do not say the server's TLS engines
        assertEquals("", rows.get(1).get(header.size() - 6));
        // at the scenario's rate, not at a fraction of a peak
        assertEquals(List.of("", ""), rows.get(1).subList(header.size() - 5, header.size() - 3));
        // and no heap per idle connection was asked for
        assertEquals(List.of("", "", ""), rows.get(1).subList(header.size() - 3, header.size()));
        assertEquals(points(studies) + 1, rows.size());
        for (List<String> row : rows) {
            assertEquals(header.size(), row.size(), row.toString());
        }
        List<String> expected = new ArrayList<>();
        for (Study s : studies) {
            for (PointRun p : s.fixed()) {
                expected.add(s.id() + "/" + p.cipher() + "/" + p.mode() + "/" + p.repetition());
            }
            for (PeakSearch r : s.peaks()) {
                for (PointRun p : r.steps()) {
                    expected.add(s.id() + "/" + p.cipher() + "/" + p.mode() + "/" + p.repetition());
                }
            }
        }
        assertEquals(expected, rows.subList(1, rows.size()).stream().map(r -> cell(header, r, "study_id") + "/"
                + cell(header, r, "cipher") + "/" + cell(header, r, "mode") + "/" + cell(header, r, "repetition"))
                .toList());
    }

    @Test
    void numbersUseADotAndTheValuesOfTheRecords() throws IOException {
        List<List<String>> rows = write(studies(), dir, CsvExport.POINTS_FILE_NAME);
        List<String> header = rows.get(0);
        // the first fixed point: aes, repetition 1, server CPU 500 µs per call less 2 %
        List<String> first = rows.get(1);
        assertEquals(List.of("7", SCENARIO, "aes", "fixed", "1", "200", "200", "0", "2.49", "490", "64", "true", ""),
                List.of(cell(header, first, "study_id"), cell(header, first, "scenario"), cell(header, first, "cipher"),
                        cell(header, first, "mode"), cell(header, first, "repetition"), cell(header, first, "rate"),
                        cell(header, first, "completed_cps"), cell(header, first, "failed_pct"),
                        cell(header, first, "crt_p50_ms"), cell(header, first, "server_cpu_us_per_call"),
                        cell(header, first, "heap_after_gc_mb"), cell(header, first, "valid"),
                        cell(header, first, "failure_causes")));
        assertEquals(List.of("2000", "0", "0", "0", "0", "0"), first.subList(header.indexOf("crt_0_30"),
                header.indexOf("crt_over_150") + 1));
        // 2000 calls in 10 s with 900 + 700 bytes each: 2560 kbit/s
        assertEquals("2560", cell(header, first, "kbps"));
        assertEquals("-1", cell(header, first, "resumption_pct"));
        // the fixture's generator spends a quarter of the server's 490 µs per call, its UAS a fifth
        assertEquals("122.5", cell(header, first, "generator_cpu_us_per_call"));
        assertEquals("98", cell(header, first, "uas_cpu_us_per_call"));
        // the aes ramp passes up to 2000 calls/s; its step at 2100 fails 10 % of its calls by timeout
        List<String> failing = rows.stream().filter(r -> r.get(0).equals("7") && cell(header, r, "mode").equals("step")
                && cell(header, r, "cipher").equals("aes") && cell(header, r, "rate").equals("2100")).findFirst()
                .orElseThrow();
        assertEquals("timeout=2100", cell(header, failing, "failure_causes"));
        assertEquals("10", cell(header, failing, "failed_pct"));
        assertEquals("1890", cell(header, failing, "completed_cps"));
        assertEquals(List.of("-1", "-1"), List.of(cell(header, failing, "generator_cpu_us_per_call"),
                cell(header, failing, "uas_cpu_us_per_call")), "not known for this step");
    }

    @Test
    void eachRowEndsWithItsFirstFullHandshakesSizesEmptyWithoutOne() throws IOException {
        Study s = Studies.withHandshakes(Studies.study(SCENARIO, List.of("udp", "aes"), 200, 250, 500).withId(3),
                "aes", new TlsFlights(1420, 1955), new TlsFlights(1452, 150));
        List<List<String>> rows = write(List.of(s), dir.resolve("sizes"), CsvExport.POINTS_FILE_NAME);
        List<String> header = rows.get(0);
        Map<String, String> sizes = new TreeMap<>();
        for (List<String> row : rows.subList(1, rows.size())) {
            if (cell(header, row, "mode").equals("fixed")) {
                sizes.put(cell(header, row, "cipher") + "/" + cell(header, row, "repetition"),
                        String.join(",", row.subList(header.indexOf("client_hello_bytes"),
                                header.indexOf("server_flight_segments") + 1)));
            }
        }
        // the resumed handshake's sizes are in results.json and the reports, not in these columns
        assertEquals(Map.of("aes/1", "1420,1,1955,2", "aes/2", "1420,1,1956,2", "aes/3", "1420,1,1956,2",
                "udp/1", ",,,", "udp/2", ",,,", "udp/3", ",,,"), sizes);
    }

    @Test
    void eachRowEndsWithItsFullHandshakesLatencyEmptyWhereNoneWasTimed() throws IOException {
        Study plain = Studies.study(SCENARIO, List.of("udp", "aes"), 200, 250, 500).withId(4);
        // repetition r's 100 full handshakes took r·2 to r·200 ms
        Study s = Studies.withHandshakeTimes(plain, "aes", 200, 20);
        List<List<String>> rows = write(List.of(s), dir.resolve("times"), CsvExport.POINTS_FILE_NAME);
        List<String> header = rows.get(0);
        int from = header.indexOf("handshake_p50_ms");
        assertEquals(List.of("handshake_p50_ms", "handshake_p99_ms", "handshakes_timed"),
                header.subList(from, from + 3));
        Map<String, String> times = new TreeMap<>();
        for (List<String> row : rows.subList(1, rows.size())) {
            if (cell(header, row, "mode").equals("fixed")) {
                times.put(cell(header, row, "cipher") + "/" + cell(header, row, "repetition"),
                        String.join(",", row.subList(from, from + 3)));
            }
        }
        PointRun second = s.fixed().stream().filter(p -> p.cipher().equals("aes") && p.repetition() == 2)
                .findFirst().orElseThrow();
        double[] ms = RunSummary.percentilesMs(second.uac().handshakeTimes(false));
        assertTrue(ms[0] >= 199 && ms[0] <= 201 && ms[2] >= 395 && ms[2] <= 397, ms[0] + " " + ms[2]);
        assertEquals(CsvExport.number(ms[0]) + "," + CsvExport.number(ms[2]) + ",100", times.get("aes/2"));
        // the resumed handshakes' latencies are in results.json and the reports, not in these columns;
        // udp made none, and ramp steps of aes none were timed in
        assertEquals(",,", times.get("udp/1"));
        assertEquals(6, times.size(), times.toString());
        for (List<String> row : rows.subList(1, rows.size())) {
            if (cell(header, row, "mode").equals("step")) {
                assertEquals(List.of("", "", ""), row.subList(from, from + 3));
            }
        }
    }

    @Test
    void eachRowEndsWithTheServersHandshakesPerCallBySideAndKind() throws IOException {
        Study plain = Studies.study("local", List.of("udp", "aes"), 200, 250, 500).withId(5);
        // aes: of 2000 calls, the generator's connections 2000 handshakes (500 resumed), the server's
        // own to the UAS 1000 (all resumed); a point without calls has no figure
        List<PointRun> fixed = new ArrayList<>();
        for (PointRun p : plain.fixed()) {
            fixed.add(!p.cipher().equals("aes") ? p : p.repetition() == 3
                    ? Studies.withHandshakeCounts(Studies.withCompleted(p, 0), 0, 0, 0, 0)
                    : Studies.withHandshakeCounts(p, 2000, 500, 1000, 1000));
        }
        Study s = new Study(plain.id(), plain.scenario(), plain.scenarioText(), plain.ciphers(), plain.started(),
                plain.environment(), fixed, plain.peaks());
        List<List<String>> rows = write(List.of(s), dir.resolve("kinds"), CsvExport.POINTS_FILE_NAME);
        List<String> header = rows.get(0);
        Map<String, String> kinds = new TreeMap<>();
        for (List<String> row : rows.subList(1, rows.size())) {
            if (cell(header, row, "mode").equals("fixed")) {
                kinds.put(cell(header, row, "cipher") + "/" + cell(header, row, "repetition"), String.join(",",
                        cell(header, row, "handshakes_as_server_full_per_call"),
                        cell(header, row, "handshakes_as_server_resumed_per_call"),
                        cell(header, row, "handshakes_as_client_full_per_call"),
                        cell(header, row, "handshakes_as_client_resumed_per_call")));
            }
        }
        assertEquals(Map.of("aes/1", "0.75,0.25,0,0.5", "aes/2", "0.75,0.25,0,0.5", "aes/3", "-1,-1,-1,-1",
                "udp/1", "0,0,0,0", "udp/2", "0,0,0,0", "udp/3", "0,0,0,0"), kinds);
    }

    @Test
    void eachRowEndsWithTheServersTlsEnginesJoinedByPlus() throws IOException {
        Study plain = Studies.study("chain", List.of("tcp", "aes", "camellia"), 200, 250, 500, 600).withId(6);
        // aes on openssl; camellia on bc in round 1, on bc and jsse in the others; tcp none
        Study s = Studies.withTlsEngines(plain, (cipher, rep) -> switch (cipher) {
            case "aes" -> List.of("openssl");
            case "camellia" -> rep == 1 ? List.of("bc") : List.of("jsse", "bc");
            default -> List.of();
        });
        Study kamailio = Studies.withTlsEngines(Studies.study("chain-kamailio", List.of("aes"), 200, 400).withId(7),
                (cipher, rep) -> List.of(ServerTlsEngines.KAMAILIO));
        List<List<String>> rows = write(List.of(s, kamailio), dir.resolve("engines"), CsvExport.POINTS_FILE_NAME);
        List<String> header = rows.get(0);
        assertEquals("server_tls_engine", header.get(header.size() - 6),
                "after the handshakes per call, before --peak-fraction's two and --idle-connections' three");
        Map<String, String> engines = new TreeMap<>();
        for (List<String> row : rows.subList(1, rows.size())) {
            String key = cell(header, row, "study_id") + "/" + cell(header, row, "cipher") + "/"
                    + cell(header, row, "mode") + "/" + cell(header, row, "repetition");
            String engine = cell(header, row, "server_tls_engine");
            assertEquals(engine, engines.getOrDefault(key, engine), "one engine per point: " + key);
            engines.put(key, engine);
        }
        assertEquals("openssl", engines.get("6/aes/fixed/1"));
        assertEquals("bc", engines.get("6/camellia/fixed/1"));
        assertEquals("bc+jsse", engines.get("6/camellia/fixed/2"), "sorted, joined by +");
        assertEquals("bc", engines.get("6/camellia/step/1"), "a ramp's steps too");
        assertEquals("", engines.get("6/tcp/fixed/3"));
        assertEquals("kamailio-openssl", engines.get("7/aes/fixed/2"));
    }

    @Test
    void everyFixedRowOfACipherSaysItsHeapPerIdleConnectionAndNoRampStepDoes() throws IOException {
        Study plain = Studies.study("handshakes", List.of("tcp", "aes", "camellia"), 200, 250, 500, 600).withId(8);
        // aes: 1,000 connections counted open (1 before, 1,001 held), 12,345,000 bytes more on the heap,
        // 50,000 left after closing; tcp's read failed; camellia not measured
        IdleHeap aes = new IdleHeap("aes", "tls", 1000, 1000, 0, null, 3.5,
                new IdleHeap.Snapshot(40_000_000, 300_000, 1_200_000_000, 1),
                new IdleHeap.Snapshot(52_345_000, 470_000, 1_230_000_000, 1001),
                new IdleHeap.Snapshot(40_050_000, 300_100, 1_229_000_000, 1), List.of("bc"), null);
        IdleHeap tcp = new IdleHeap("tcp", "tcp", 1000, 0, 0, null, 0, null, null, null, List.of(),
                "the server's heap could not be read: jcmd exited with 1");
        Study s = plain.withIdle(List.of(aes, tcp));
        List<List<String>> rows = write(List.of(s), dir.resolve("idle"), CsvExport.POINTS_FILE_NAME);
        List<String> header = rows.get(0);
        Map<String, String> idle = new TreeMap<>();
        for (List<String> row : rows.subList(1, rows.size())) {
            idle.put(cell(header, row, "cipher") + "/" + cell(header, row, "mode") + "/" + cell(header, row, "repetition"),
                    String.join(",", row.subList(header.indexOf("idle_connections"), header.size())));
        }
        assertEquals("1000,12345,50", idle.get("aes/fixed/1"));
        assertEquals("1000,12345,50", idle.get("aes/fixed/3"), "the same on every fixed-rate row of the cipher");
        assertEquals(",,", idle.get("aes/step/1"), "a ramp's step held none");
        assertEquals(",,", idle.get("tcp/fixed/1"), "not valid: empty");
        assertEquals(",,", idle.get("camellia/fixed/2"), "not measured");
    }

    @Test
    void aValueHoldingACommaOrQuoteIsQuoted() throws IOException {
        write(studies(), dir, CsvExport.POINTS_FILE_NAME);
        String text = Files.readString(dir.resolve(CsvExport.POINTS_FILE_NAME));
        assertTrue(text.contains("\r\n7,\"chain, \"\"tls\"\"\",aes,fixed,1,200,"), text.substring(0, 600));
        assertTrue(text.contains("\r\n8,inbound,seed,fixed,1,50,"), text);
        assertEquals("\"a,b\"", CsvExport.field("a,b"));
        assertEquals("\"two\r\nlines\"", CsvExport.field("two\r\nlines"));
        assertEquals("plain", CsvExport.field("plain"));
    }

    @Test
    void peaksHaveOneRowPerRamp() throws IOException {
        List<Study> studies = studies();
        List<List<String>> rows = write(studies, dir, CsvExport.PEAKS_FILE_NAME);
        assertEquals(CsvExport.PEAK_COLUMNS, rows.get(0));
        assertEquals(List.of(
                List.of("7", SCENARIO, "aes", "1", "2000", "2000", "failures", "21"),
                List.of("7", SCENARIO, "udp", "1", "4000", "4000", "failures", "41"),
                List.of("8", "inbound", "seed", "1", "1100", "1100", "failures", "12")), rows.subList(1, rows.size()));
    }

    @Test
    void numbersAreWrittenInFullWithoutExponent() {
        assertEquals("0.00001", CsvExport.number(1e-5));
        assertEquals("123456789012345680000", CsvExport.number(1.2345678901234568e20));
        assertEquals("-1", CsvExport.number(-1));
        assertEquals("33.333333333333336", CsvExport.number(100.0 / 3));
        assertEquals("NaN", CsvExport.number(Double.NaN));
    }
}
