package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.SipcryptServer;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * The {@code options} workload against the real server on loopback: each operation an OPTIONS to
 * the server itself, answered 200 by it (RFC 3261 §11), over UDP and one TCP connection, and over
 * TLS with a connection of its own per operation and session reuse off, as the TLS benchmark's
 * handshake part runs it: one full handshake per operation, with and without the client certificate
 * the server demands. The timeouts are generous, so a busy machine makes operations slower, not
 * failed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OptionsPingIT {

    private static final String SUITE = "TLS_RSA_WITH_AES_128_CBC_SHA";
    private static final long OPERATIONS = 20;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "over {0}")
    @EnumSource(value = Transport.class, names = {"UDP", "TCP"})
    void optionsToTheServerCompleteWithTheir200(Transport t) throws Exception {
        try (SipcryptServer server = RegistrarWorkloadsIT.server(dir)) {
            RunSummary r = RegistrarWorkloadsIT.run(server, t, Workload.OPTIONS, List.of(), null, 1.0);
            RegistrarWorkloadsIT.assertAllCompleted(r);
            assertTrue(r.description().startsWith("options: "), r.description());
            assertEquals(0, r.retransmissions(), "every OPTIONS answered before Timer E: " + r.text());
        }
    }

    @ParameterizedTest(name = "generator on {0}, client certificate {1}")
    @CsvSource({"bc, false", "jsse, false", "bc, true", "jsse, true"})
    void everyOptionsOnATlsConnectionOfItsOwnMakesOneFullHandshake(String engine, boolean mutual) throws Exception {
        Path certs = dir.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
        Map<String, List<String>> s = new LinkedHashMap<>();
        s.put("dataDir", List.of(dir.resolve("data").toString()));
        s.put("stats.interval", List.of("0"));
        s.put("shutdown.grace", List.of("2s"));
        s.put("listen", List.of("tls:127.0.0.1:0"));
        s.put("tls.cert", List.of(certs.resolve("server.pem").toString()));
        s.put("tls.key", List.of(certs.resolve("server-key.pem").toString()));
        s.put("tls.trust", List.of(certs.resolve("ca.pem").toString()));
        s.put("tls.handshakeTimeout", List.of("60s"));
        s.put("tls.clientAuth", List.of(mutual ? "need" : "none"));
        TlsOptions tls = TlsOptions.of(List.of(SUITE), certs.resolve("ca.pem")).withEngine(engine).withSessionReuse(false);
        if (mutual) {
            tls = tls.withIdentity(certs.resolve("client.pem"), certs.resolve("client-key.pem"));
        }
        try (SipcryptServer server = SipcryptServer.start(ConfigLoader.load(null, s))) {
            UacOptions o = new UacOptions(server.address(Transport.TLS), Transport.TLS, ConnectionPattern.PER_CALL, tls,
                    10, Duration.ofSeconds(2), Duration.ZERO, Duration.ofSeconds(30), Duration.ZERO, 1.0,
                    "sip:lab-uas@lab.test", InetAddress.getLoopbackAddress(), Duration.ofSeconds(1))
                    .withWorkload(Workload.OPTIONS);
            List<Interval> samples = new ArrayList<>();
            RunSummary r = new Uac(o).run(samples::add);
            assertEquals(OPERATIONS, r.offered(), r.text());
            assertEquals(0, r.failed(), r.text());
            assertEquals(OPERATIONS, r.completed(), r.text());
            assertEquals(OPERATIONS, r.crtCount(), "one response time per operation: " + r.text());
            assertEquals(OPERATIONS, r.handshakes(), "a handshake per operation: " + r.text());
            assertEquals(0, r.resumed(), "reuse off: every handshake full: " + r.text());
        }
    }
}
