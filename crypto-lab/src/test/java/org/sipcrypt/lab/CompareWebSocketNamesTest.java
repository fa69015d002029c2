package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.lab.runner.Handshake;
import org.sipcrypt.lab.scenario.Leg;
import org.sipcrypt.server.transport.Transport;

/**
 * {@code compare --ciphers} with SIP over WebSocket: {@code ws} and {@code wss:CIPHER} select the
 * transport of every TLS leg and the cipher on it, and the names or combinations the lab cannot run
 * are refused before anything starts (exit 2), saying why.
 * Threading: JUnit's test thread only.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CompareWebSocketNamesTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} runs {2} over {1}")
    @CsvSource({"udp, udp, udp", "tcp, tcp, tcp", "ws, ws, ws", "aes, tls, aes", "wss:aes, wss, aes",
            "wss:TLS_RSA_WITH_AES_128_CBC_SHA, wss, TLS_RSA_WITH_AES_128_CBC_SHA"})
    void aComparedNameSelectsTransportAndCipher(String compared, String transport, String cipher) {
        Leg.checkCompared(compared);
        assertEquals(Transport.parse(transport), Leg.comparedTransport(compared));
        assertEquals(cipher, Leg.cipherOf(compared));
    }

    @Test
    void wssRunsTheSuiteItsCipherRunsOverTls() {
        assertEquals(Handshake.DEFAULT.suite("aes"), Handshake.DEFAULT.suite("wss:aes"));
        assertEquals("TLS_RSA_WITH_AES_128_CBC_SHA", Handshake.DEFAULT.suite("wss:aes"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"wss:", "wss:tcp", "wss:udp", "wss:ws", "wss:wss:aes", "ws:aes", "tls:aes"})
    void malformedNamesAreRefused(String compared) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Leg.checkCompared(compared));
        assertTrue(e.getMessage().contains("\"" + compared + "\""), e.getMessage());
    }

    @ParameterizedTest(name = "{1} on {0}")
    @CsvSource(delimiter = ';', value = {
        "chain;wss:;expected wss: followed by a cipher",
        "chain;ws:aes;or wss:CIPHER",
        "inbound;wss:aes;connection per call",
        "local;ws;connection per call",
        "chain-auth;ws;digest authentication",
    })
    void compareRefusesWhatItCannotRunBeforeStarting(String scenario, String ciphers, String why) {
        StringWriter out = new StringWriter();
        assertEquals(2, LabCommandLine.run(out, "compare", "--scenario", scenario, "--ciphers", ciphers, "--out",
                dir.resolve("out").toString(), "--db", "jdbc:h2:" + dir.resolve("db"), "--pin", "off"));
        assertTrue(out.toString().contains(why), out.toString());
    }

    @Test
    void compareRefusesWebSocketAgainstATarget() {
        StringWriter out = new StringWriter();
        assertEquals(2, LabCommandLine.run(out, "compare", "--scenario", "chain", "--ciphers", "tcp,ws", "--target", "127.0.0.1:5060",
                "--out", dir.resolve("out").toString(), "--db", "jdbc:h2:" + dir.resolve("db"), "--pin", "off"));
        assertTrue(out.toString().contains("not built against a target"), out.toString());
    }

    @Test
    void aCipherWithNoSuiteForTheHandshakeIsRefusedOverWssToo() {
        StringWriter out = new StringWriter();
        assertEquals(2, LabCommandLine.run(out, "compare", "--scenario", "chain", "--ciphers", "wss:aes,wss:seed", "--tls-version",
                "1.3", "--kx", "ecdhe-x25519", "--out", dir.resolve("out").toString(), "--db",
                "jdbc:h2:" + dir.resolve("db"), "--pin", "off"));
        assertTrue(out.toString().contains("wss:seed: no suite for TLS 1.3"), out.toString());
    }
}
