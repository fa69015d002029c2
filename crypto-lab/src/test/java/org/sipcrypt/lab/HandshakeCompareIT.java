package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.lab.report.JsonExport;
import org.sipcrypt.lab.runner.IdleHeap;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.ServerHandshakes;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;

/**
 * {@code compare --tls-version --kx --cert --resumption} end to end on aes, against the real server
 * in its own process on the bc and the jsse engine: calls complete, the study stores the handshake
 * (and results.csv says it), and the server's own counter {@code tls.handshakes} (its last stats
 * line, logged as it stops) shows only the suite of that version, key exchange and certificate, that
 * group on its bc listener (the engine that tells the group), and handshakes of the kind the
 * resumption asks for: on {@code outbound}, where each call is a connection of its own, resumed ones
 * outnumbering full ones with {@code session-id}, none resumed with {@code none}, counted under
 * {@code role=server}, and the proxy's own connection to the UAS a full one under {@code role=client};
 * the point's own counts by side and kind (results.csv's last columns, per call) name the same kind
 * for the measured part and stay within the server's counts. The generator recorded the sizes of its
 * first full handshake (and of its first resumed one with {@code session-id}) and timed its
 * handshakes after the warm-up (full ones with {@code none}, resumed ones with {@code session-id}: a
 * positive latency below the call timeout), and results.csv and the report show them. Two cases, for
 * CI's time: the first also holds 40 idle connections after its points ({@code --idle-connections})
 * and finds each on the server's heap, counted open by it, in results.json, results.csv and the report;
 * the other combinations (RSA-3072, TLS 1.2 P-256 on the bc listener, session IDs on bc)
 * are made by independent peers against the same listeners in {@code IndependentPeersIT}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HandshakeCompareIT {

    private static final Pattern HANDSHAKES = Pattern.compile("tls\\.handshakes\\{([^}]*)}=(\\d+)");

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} on {1}: TLS {2}, {3}, {4}, resumption {5}, {8} idle connections")
    @CsvSource({"outbound, bc, 1.3, ecdhe-x25519, ecdsa-p256, none, TLS_AES_128_GCM_SHA256, x25519, 40",
            "outbound, jsse, 1.2, ecdhe-p256, ecdsa-p256, session-id, TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, unknown, 0"})
    void eachTlsLegRunsTheSuiteOfTheHandshakeOnThatGroupAloneAndResumesAsAsked(String preset, String engine,
            String version, String kx, String cert, String resumption, String suite, String group, int idle)
            throws Exception {
        Path out = dir.resolve("out");
        Path work = dir.resolve("work");
        StringWriter said = new StringWriter();
        Scenario base = ScenarioFiles.load(preset);
        Map<String, String> server = new TreeMap<>(base.server());
        server.put("tls.engine", engine);
        Path file = dir.resolve(preset + ".yaml");
        Files.writeString(file, ScenarioFiles.toYaml(new Scenario(base.name(), base.description(), base.workload(),
                base.auth(), base.users(), base.left(), base.right(), base.load(), base.repeat(), base.generators(),
                base.ciphers(), server, base.serverJvm())));
        List<String> args = new ArrayList<>(List.of("compare", "--scenario", file.toString(), "--ciphers", "aes",
                "--tls-version", version, "--kx", kx, "--cert", cert, "--rate", "20", "--duration", "2", "--warmup", "1",
                "--repeat", "1", "--pin", "off", "--out", out.toString(), "--work-dir", work.toString(), "--db",
                "jdbc:h2:file:" + dir.resolve("db/lab")));
        if (!resumption.equals("scenario")) {
            args.addAll(List.of("--resumption", resumption));
        }
        if (idle > 0) {
            args.addAll(List.of("--idle-connections", Integer.toString(idle)));
        }
        int rc = LabCommandLine.run(said, args.toArray(String[]::new));
        assertTrue(rc == 0 || rc == 1, "compare ran (exit 0 or 1, not 2)\n" + said);

        Study s = JsonExport.read(out.resolve("results.json")).get(0);
        assertEquals(version, s.environment().tlsVersion());
        assertEquals(kx, s.environment().keyExchange());
        assertEquals(cert, s.environment().certificate());
        assertEquals(resumption.equals("scenario") ? null : resumption, s.environment().resumption());
        assertTrue(Files.readString(out.resolve("report.md")).contains("TLS " + version + ", " + kx),
                "the environment table");
        List<String> csv = Files.readAllLines(out.resolve("results.csv"), StandardCharsets.UTF_8);
        assertTrue(csv.get(0).endsWith(",tls_version,kx,cert,resumption,left_transport,right_transport,"
                + "client_hello_bytes,client_hello_segments,server_flight_bytes,server_flight_segments,"
                + "handshake_p50_ms,handshake_p99_ms,handshakes_timed,handshakes_as_server_full_per_call,"
                + "handshakes_as_server_resumed_per_call,handshakes_as_client_full_per_call,"
                + "handshakes_as_client_resumed_per_call,server_tls_engine,peak_fraction,from_peak_rate,"
                + "idle_connections,idle_heap_bytes_per_connection,idle_heap_left_after_closing_bytes_per_connection"),
                csv.get(0));
        double timeoutMs = base.load().callTimeout().toMillis();
        long completed = 0;
        ServerHandshakes measured = new ServerHandshakes(0, 0, 0, 0);
        for (PointRun p : s.fixed()) {
            assertEquals(0, p.uac().failed(), p.uac().text());
            completed += p.uac().completed();
            // the generator's first full handshake, read below TLS: a ClientHello offering one suite and
            // one group (TLS 1.3: with X25519's 32-byte key share) fits in one Ethernet segment; the
            // server's first flight holds at least its ECDSA certificate
            TlsFlights full = p.uac().fullHandshake();
            assertNotNull(full, "handshake sizes recorded\n" + p.uac().text());
            assertTrue(full.clientHelloBytes() >= 100 && full.clientHelloBytes() <= 700, full.toString());
            assertEquals(1, full.clientHelloSegments(), full.toString());
            assertTrue(full.serverFlightBytes() > 400, full.toString());
            assertEquals(resumption.equals("session-id"), p.uac().resumedHandshake() != null,
                    "a resumed handshake's sizes where sessions resume: " + p.uac().text());
            // each call's connection is timed from its ClientHello to its handshake done; a session
            // resumes from the second connection on, so with session-id the full one is in the warm-up
            Histogram timed = p.uac().handshakeTimes(resumption.equals("session-id"));
            assertTrue(timed.getTotalCount() > 0, "handshakes timed after the warm-up\n" + p.uac().text());
            double[] ms = RunSummary.percentilesMs(timed);
            assertTrue(ms[0] > 0 && ms[3] < timeoutMs, "latency positive and below the call timeout: "
                    + p.uac().text());
            if (resumption.equals("none")) {
                assertEquals(0, p.uac().handshakeTimes(true).getTotalCount(), p.uac().text());
            }
            String row = csv.get(1 + s.fixed().indexOf(p));
            assertTrue(row.contains("," + version + "," + kx + "," + cert + "," + resumption + ",tls,tls,"
                    + full.clientHelloBytes() + ",1," + full.serverFlightBytes() + "," + full.serverFlightSegments()
                    + ","), row);
            // then the full handshakes' latency: p50, p99 and how many, empty where none was timed
            String[] fields = row.split(",", -1);
            List<String> latency = List.of(fields).subList(fields.length - 13, fields.length - 10);
            Histogram timedFull = p.uac().handshakeTimes(false);
            if (timedFull.getTotalCount() == 0) {
                assertEquals(List.of("", "", ""), latency, row);
            } else {
                double[] fullMs = RunSummary.percentilesMs(timedFull);
                assertEquals(List.of(fullMs[0], fullMs[2], (double) timedFull.getTotalCount()),
                        latency.stream().map(Double::parseDouble).toList(), row);
            }
            // the server's handshakes of the measured part: each call's connection from the generator,
            // the server its TLS server, full without a session offered and resumed with session-id (its
            // first full one in the warm-up); its one connection to the UAS opened before
            assertEquals(List.of(engine), p.server().tlsEngines(), "the server's TLS engine, as the scenario set it");
            assertEquals(List.of(engine, "", ""), List.of(fields).subList(fields.length - 6, fields.length - 3), row);
            ServerHandshakes kinds = p.serverHandshakes();
            assertEquals(resumption.equals("none") ? "as server, full" : "as server, resumed", kinds.kind(),
                    kinds + "\n" + p.uac().text());
            measured = measured.plus(kinds);
            // and per completed call, in results.csv before the engine, the two columns of --peak-fraction
            // and the three of --idle-connections
            double calls = p.uac().completed();
            assertEquals(List.of(kinds.asServerFull() / calls, kinds.asServerResumed() / calls,
                    kinds.asClientFull() / calls, kinds.asClientResumed() / calls),
                    List.of(fields).subList(fields.length - 10, fields.length - 6).stream().map(Double::parseDouble)
                            .toList(), row);
        }
        String md = Files.readString(out.resolve("report.md"));
        assertTrue(md.contains("### Handshake") && md.contains("| latency p50 ms | latency p99 ms | timed |"),
                "the handshake table, with its latency");
        if (idle > 0) {
            // the heap per idle connection after the points: every connection held and counted open by
            // the server, a TLS connection's state on the heap (bc keeps 10-14 KB of it), all closed again
            assertEquals(1, s.idle().size(), s.idle().toString());
            IdleHeap h = s.idle().get(0);
            assertTrue(h.valid(), h.toString());
            assertEquals(List.of("aes", "tls", idle, 0), List.of(h.cipher(), h.transport(), h.held(), h.failed()),
                    h.toString());
            assertTrue(Math.abs(h.connections() - idle) <= 2, "the server counted them open: " + h);
            assertTrue(h.bytesPerConnection() > 2_000 && h.bytesPerConnection() < 200_000, h.toString());
            assertEquals(h.before().openConnections(), h.after().openConnections(), "all closed again: " + h);
            assertEquals(List.of(engine), h.tlsEngines(), h.toString());
            for (String row : csv.subList(1, csv.size())) {
                String[] fields = row.split(",", -1);
                assertEquals(List.of(Long.toString(h.connections()), Long.toString(Math.round(h.bytesPerConnection()))),
                        List.of(fields).subList(fields.length - 3, fields.length - 1), row);
            }
            assertTrue(md.contains("### Heap per idle connection") && md.contains("| aes | tls | " + engine + " | "
                    + h.connections() + " | "), md);
            assertTrue(said.toString().contains("aes: heap per idle connection "), said.toString());
        } else {
            assertEquals(List.of(), s.idle());
            assertFalse(md.contains("### Heap per idle connection"), md);
            for (String row : csv.subList(1, csv.size())) {
                assertTrue(row.endsWith(",,,"), "no idle columns: " + row);
            }
        }
        assertTrue(completed > 0, "calls completed\n" + said);
        assertEquals(cert.startsWith("ecdsa") ? "EC" : "RSA", serverKeyAlgorithm(work, cert),
                "the server was given a certificate of that type");

        String stats = lastStatsLine(work);
        assertNotNull(stats, "the server logged its counters as it stopped");
        Matcher m = HANDSHAKES.matcher(stats);
        long listenerFull = 0;
        // by role and kind, as ServerHandshakes orders them
        long[] counted = new long[4];
        while (m.find()) {
            String tags = m.group(1);
            // the proxy's own connections to the UAS count their group as unknown (bc's outgoing side);
            // a resumed TLS 1.2 session uses no group (none)
            assertTrue(tags.matches("engine=" + engine + ",group=(" + group + "|unknown|none),kind=(full|resumed),"
                    + "role=(server|client),suite=" + suite), "every handshake on " + suite + " and the " + engine
                    + " engine, on " + group + " where the engine tells: " + m.group());
            long n = Long.parseLong(m.group(2));
            if (tags.equals("engine=" + engine + ",group=" + group + ",kind=full,role=server,suite=" + suite)) {
                listenerFull += n;
            }
            counted[(tags.contains("role=client") ? 2 : 0) + (tags.contains("kind=resumed") ? 1 : 0)] += n;
        }
        ServerHandshakes byServer = new ServerHandshakes(counted[0], counted[1], counted[2], counted[3]);
        assertTrue(listenerFull > 0, "full handshakes on " + group + " counted by the listener: " + stats);
        // the server's connection to the UAS: a full handshake as TLS client
        assertTrue(byServer.asClientFull() >= 1, "the proxy's connection to the UAS: " + stats);
        switch (resumption) {
            case "session-id" -> assertTrue(byServer.asServerResumed() > byServer.asServerFull(),
                    "per-call connections resumed: " + stats);
            case "none" -> assertEquals(0, byServer.asServerResumed() + byServer.asClientResumed(),
                    "no session offered: " + stats);
            default -> { }
        }
        // the lab's per-point counts, of the measured parts only, within the server's own (its whole run)
        assertTrue(measured.asServerFull() <= byServer.asServerFull() && measured.asServerResumed() <= byServer.asServerResumed()
                && measured.asClientFull() <= byServer.asClientFull()
                && measured.asClientResumed() <= byServer.asClientResumed(), measured + " within " + byServer);
        assertFalse(stats.contains("tls.handshakes.failed"), stats);
    }

    /** The key algorithm of the server certificate the lab made for {@code --cert}. */
    private static String serverKeyAlgorithm(Path work, String cert) throws Exception {
        Path pem = work.resolve(cert.equals("rsa2048") ? "certs" : "certs-" + cert).resolve("server.pem");
        try (InputStream in = Files.newInputStream(pem)) {
            X509Certificate c = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            if (c.getPublicKey() instanceof RSAPublicKey rsa) {
                assertEquals(cert.equals("rsa3072") ? 3072 : 2048, rsa.getModulus().bitLength(), "RSA key size");
            }
            return c.getPublicKey().getAlgorithm();
        }
    }

    /** The last {@code stats:} line of the server of the run, or null. */
    private static String lastStatsLine(Path work) throws IOException {
        List<Path> logs;
        try (Stream<Path> files = Files.walk(work)) {
            logs = files.filter(f -> f.getFileName().toString().equals("server.log")).toList();
        }
        assertEquals(1, logs.size(), "one server for one cipher: " + logs);
        String last = null;
        for (String line : Files.readAllLines(logs.get(0), StandardCharsets.UTF_8)) {
            int i = line.indexOf("stats: ");
            if (i >= 0) {
                last = line.substring(i);
            }
        }
        return last;
    }
}
