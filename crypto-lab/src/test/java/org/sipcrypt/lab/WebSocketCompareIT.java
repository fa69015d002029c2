package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.lab.report.JsonExport;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.Study;

/**
 * {@code compare --ciphers ws,wss:aes} on {@code chain}, shortened to 2 s at 20 calls/s without a
 * warm-up, against the real server in its own process: both legs of each point run SIP over
 * WebSocket (the generator's calls over a {@code ws:}/{@code wss:} listener, the UAS registered over
 * another WebSocket connection and reached over it), every call completes, results.csv says the
 * transport of each leg, and the server's own counters (its last stats line, logged as it stops) show
 * the UAS's registration over that transport ({@code sip.registrations.nat{transport}}), no upgrade
 * refused, and for wss the TLS handshakes of both legs on aes's suite, under the engines the point names.
 * Threading: JUnit's test thread only.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WebSocketCompareIT {

    private static final Pattern HANDSHAKES = Pattern.compile("tls\\.handshakes\\{([^}]*)}=(\\d+)");

    @TempDir
    Path dir;

    @Test
    void wsAndWssCompareWithEveryCallCompletedOverWebSocketOnBothLegs() throws Exception {
        Path out = dir.resolve("out");
        Path work = dir.resolve("work");
        StringWriter said = new StringWriter();
        int rc = LabCommandLine.run(said, "compare", "--scenario", "chain", "--ciphers", "ws,wss:aes", "--rate", "20", "--duration", "2",
                "--warmup", "0", "--repeat", "1", "--pin", "off", "--out", out.toString(), "--work-dir",
                work.toString(), "--db", "jdbc:h2:file:" + dir.resolve("db/lab"));
        System.out.println(said);
        assertTrue(rc == 0 || rc == 1, "compare ran (exit 0 or 1, not 2)\n" + said);

        Study s = JsonExport.read(out.resolve("results.json")).get(0);
        assertEquals(List.of("ws", "wss:aes"), s.fixed().stream().map(PointRun::cipher).toList(), "a point per name");
        for (PointRun p : s.fixed()) {
            assertEquals(0, p.uac().failed(), p.uac().text());
            assertEquals(40, p.uac().completed(), p.uac().text());
        }
        PointRun wss = s.fixed().get(1);
        assertTrue(wss.uac().handshakes() >= 1, "the generator's TLS handshake under WSS: " + wss.uac().text());

        List<String> csv = Files.readAllLines(out.resolve("results.csv"), StandardCharsets.UTF_8);
        assertTrue(csv.get(0).endsWith(",left_transport,right_transport,client_hello_bytes,client_hello_segments,"
                + "server_flight_bytes,server_flight_segments,handshake_p50_ms,handshake_p99_ms,handshakes_timed,"
                + "handshakes_as_server_full_per_call,handshakes_as_server_resumed_per_call,"
                + "handshakes_as_client_full_per_call,handshakes_as_client_resumed_per_call,server_tls_engine,peak_fraction,from_peak_rate,"
                + "idle_connections,idle_heap_bytes_per_connection,idle_heap_left_after_closing_bytes_per_connection"),
                csv.get(0));
        // the handshake's sizes are measured below TLS, so under WSS too; ws has none
        TlsFlights sizes = wss.uac().fullHandshake();
        assertNotNull(sizes, wss.uac().text());
        // and no latency: chain's one persistent connection made its handshake before the run began
        assertEquals(0, wss.uac().handshakeTimes(false).getTotalCount(), wss.uac().text());
        // then the server's handshakes per call by side and kind: none under ws; no server TLS engine
        // under ws; then the two columns of --peak-fraction, empty at the scenario's rate, and the three
        // of --idle-connections, not asked for
        assertTrue(csv.get(1).contains(",ws,") && csv.get(1).endsWith(",ws,ws,,,,,,,,0,0,0,0,,,,,,"), csv.get(1));
        assertEquals(List.of(), s.fixed().get(0).server().tlsEngines());
        String wssRow = csv.get(2).replaceFirst("(,[^,]*){10}$", "");
        assertTrue(csv.get(2).contains(",wss:aes,") && wssRow.endsWith(",wss,wss," + sizes.clientHelloBytes() + ","
                + sizes.clientHelloSegments() + "," + sizes.serverFlightBytes() + "," + sizes.serverFlightSegments()
                + ",,,"), csv.get(2));
        assertTrue(Files.readString(out.resolve("report.md")).contains("| wss:aes |"), "the report's rows");

        String wsStats = lastStatsLine(work, "chain-sipcrypt-ws-");
        assertTrue(wsStats.contains("sip.registrations.nat{transport=ws}=1"), "the UAS registered over ws: " + wsStats);
        assertFalse(wsStats.contains("transport.ws.refused"), wsStats);
        assertFalse(wsStats.contains("tls.handshakes"), "no TLS under ws: " + wsStats);

        String wssStats = lastStatsLine(work, "chain-sipcrypt-wss-aes-");
        assertTrue(wssStats.contains("sip.registrations.nat{transport=wss}=1"), "the UAS registered over wss: " + wssStats);
        assertFalse(wssStats.contains("transport.ws.refused"), wssStats);
        assertFalse(wssStats.contains("tls.handshakes.failed"), wssStats);
        Matcher m = HANDSHAKES.matcher(wssStats);
        long handshakes = 0;
        Set<String> engines = new TreeSet<>();
        while (m.find()) {
            assertTrue(m.group(1).contains("suite=TLS_RSA_WITH_AES_128_CBC_SHA"), "aes's suite: " + m.group());
            Matcher engine = Pattern.compile("(?:^|,)engine=(\\w+)").matcher(m.group(1));
            assertTrue(engine.find(), "the engine of each handshake: " + m.group());
            engines.add(engine.group(1));
            handshakes += Long.parseLong(m.group(2));
        }
        assertTrue(handshakes >= 2, "the generator's and the UAS's connections to the wss listener: " + wssStats);
        // the point names the engines the server counted its wss handshakes under
        assertEquals(List.copyOf(engines), wss.server().tlsEngines(), wssStats);
        assertTrue(csv.get(2).endsWith("," + String.join("+", engines) + ",,,,,"), csv.get(2));
    }

    /** The last {@code stats:} line of the server of the bench whose directory begins with {@code prefix}. */
    private static String lastStatsLine(Path work, String prefix) throws IOException {
        List<Path> logs;
        try (Stream<Path> files = Files.walk(work)) {
            logs = files.filter(f -> f.getFileName().toString().equals("server.log")
                    && f.getParent().getFileName().toString().startsWith(prefix)).toList();
        }
        assertEquals(1, logs.size(), "one server for " + prefix + ": " + logs);
        String last = null;
        for (String line : Files.readAllLines(logs.get(0), StandardCharsets.UTF_8)) {
            int i = line.indexOf("stats: ");
            if (i >= 0) {
                last = line.substring(i);
            }
        }
        assertNotNull(last, "the server logged its counters as it stopped");
        return last;
    }
}
