package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;

/**
 * {@code compare --handshakes}: combinations written {@code VERSION/KX[/CERT[/RESUMPTION]]} parse to
 * the handshake the single options give, bad ones are refused naming the option and the item, and a
 * cipher a combination cannot run is skipped for it with the reason, a combination that runs no
 * cipher refused.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HandshakeMatrixTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "1.2/rsa;1.2;rsa;rsa2048;",
        "1.3/ecdhe-x25519;1.3;ecdhe-x25519;rsa2048;",
        " 1.3/ECDHE-P256/ecdsa-p256 ;1.3;ecdhe-p256;ecdsa-p256;",
        "1.2/ecdhe-p256/rsa3072/session-id;1.2;ecdhe-p256;rsa3072;session-id",
        "1.3/x25519mlkem768/rsa2048/none;1.3;x25519mlkem768;rsa2048;none",
    })
    void aCombinationIsTheHandshakeOfTheSingleOptions(String item, String version, String kx, String cert,
                                                      String resumption) {
        Handshake h = HandshakeMatrix.parseOne(item);
        assertEquals(Handshake.parse(version, kx, cert, resumption), h);
        assertEquals(h, HandshakeMatrix.parseOne(HandshakeMatrix.text(h)), "its text reads back");
    }

    @Test
    void theTextLeavesOutWhatIsTheDefault() {
        assertEquals("1.2/rsa", HandshakeMatrix.text(Handshake.DEFAULT));
        assertEquals("1.3/ecdhe-p256/ecdsa-p256", HandshakeMatrix.text(HandshakeMatrix.parseOne("1.3/ecdhe-p256/ecdsa-p256")));
        assertEquals("1.2/rsa/rsa2048/none", HandshakeMatrix.text(HandshakeMatrix.parseOne("1.2/rsa/rsa2048/none")));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = ';', value = {
        "1.2;expected VERSION/KX",
        "1.2/rsa/rsa2048/none/extra;expected VERSION/KX",
        "'';expected VERSION/KX",
        "1.4/rsa;--tls-version",
        "1.3/rsa;TLS 1.3 has no RSA key exchange",
        "1.2/x25519mlkem768;TLS 1.3 key exchanges",
        "1.2/dhe;--kx",
        "1.2/rsa/ecdsa-p256;RSA key exchange encrypts",
        "1.2/ecdhe-x25519/ecdsa-p256;RFC 8422",
        "1.3/ecdhe-p256/rsa2048/session-id;PSK only",
        "1.2/rsa//none;--cert",
    })
    void aBadCombinationIsRefusedNamingTheOptionAndTheItem(String item, String why) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HandshakeMatrix.parse(List.of(item)));
        assertTrue(e.getMessage().startsWith("--handshakes: \"" + item), e.getMessage());
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }

    @Test
    void aListKeepsItsOrderAndRefusesTheSameCombinationTwice() {
        assertEquals(List.of(Handshake.DEFAULT, HandshakeMatrix.parseOne("1.3/ecdhe-x25519")),
                HandshakeMatrix.parse(List.of("1.2/rsa", "1.3/ecdhe-x25519")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HandshakeMatrix.parse(List.of("1.2/rsa", "1.2/rsa/rsa2048")));
        assertTrue(e.getMessage().contains("given twice"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> HandshakeMatrix.parse(List.of()));
    }

    private static Scenario outbound() throws IOException {
        return ScenarioFiles.load("outbound");
    }

    @ParameterizedTest(name = "{0} skips {2}")
    @CsvSource(delimiter = ';', value = {
        "1.2/rsa;tcp,aes,chacha20,seed;chacha20;a TLS_RSA_WITH_ suite",
        "1.2/ecdhe-p256;tcp,aes,seed,camellia;seed,camellia;a TLS_ECDHE_RSA_WITH_ suite",
        "1.3/ecdhe-x25519;udp,aes,3des,rc4,chacha20;3des,rc4;a TLS 1.3 suite",
        "1.2/ecdhe-p256/ecdsa-p256;aes,seed;seed;a TLS_ECDHE_ECDSA_WITH_ suite",
    })
    void aCipherTheCombinationCannotRunIsSkippedWithItsReason(String item, String ciphers, String skipped, String why)
            throws IOException {
        HandshakeMatrix.Combination c = HandshakeMatrix.plan(HandshakeMatrix.parseOne(item),
                List.of(ciphers.split(",")), outbound());
        List<String> expectSkipped = List.of(skipped.split(","));
        assertEquals(expectSkipped, List.copyOf(c.skipped().keySet()));
        assertEquals(List.of(ciphers.split(",")).stream().filter(x -> !expectSkipped.contains(x)).toList(), c.runnable());
        for (String note : c.notes()) {
            assertTrue(note.contains(why) && note.startsWith(note.substring(0, note.indexOf(':')) + ": no suite for "), note);
            assertTrue(!note.contains("these can run"), "the list of runnable ciphers is the table's: " + note);
        }
        assertEquals(c.notes().get(0).substring(0, c.notes().get(0).indexOf(':')), expectSkipped.get(0));
    }

    @Test
    void aCombinationThatRunsNoCipherButBaselinesIsRefused() throws IOException {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HandshakeMatrix.plan(
                HandshakeMatrix.parseOne("1.3/ecdhe-x25519"), List.of("tcp", "3des", "seed"), outbound()));
        assertTrue(e.getMessage().startsWith("--handshakes: 1.3/ecdhe-x25519 on outbound runs none of --ciphers"
                + " tcp,3des,seed: 3des: "), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> HandshakeMatrix.plan(
                HandshakeMatrix.parseOne("1.2/rsa"), List.of("udp", "tcp"), outbound()));
        assertTrue(e.getMessage().contains("but the baselines"), e.getMessage());
    }

    @Test
    void aHybridOnAServerSetToAnotherEngineRunsNothingAndIsRefused() throws IOException {
        Scenario jsse = ScenarioFiles.parse("name: jsse\nleft: {connection: per-call}\nserver: {tls.engine: jsse}\n",
                "jsse");
        Handshake hybrid = HandshakeMatrix.parseOne("1.3/x25519mlkem768");
        assertTrue(HandshakeMatrix.skipReason(hybrid, "aes", jsse.server()).contains("bc TLS engine only"));
        assertNull(HandshakeMatrix.skipReason(hybrid, "aes", Map.of()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HandshakeMatrix.plan(hybrid, List.of("tcp", "aes"), jsse));
        assertTrue(e.getMessage().contains("aes: --kx x25519mlkem768: hybrid key exchange runs on the bc TLS engine"),
                e.getMessage());
    }

    @Test
    void theHandshakesPresetListsOnlyCombinationsThatRunSomethingOfItsCiphers() throws IOException {
        Scenario s = ScenarioFiles.load("handshakes");
        assertEquals(List.of("tcp", "aes"), s.ciphers());
        assertEquals(List.of("1.2/rsa", "1.2/ecdhe-x25519", "1.3/ecdhe-x25519",
                "1.3/ecdhe-p256/ecdsa-p256", "1.3/x25519mlkem768"), s.handshakes());
        List<String> withChacha = List.of("tcp", "aes", "chacha20");
        for (Handshake h : HandshakeMatrix.parse(s.handshakes())) {
            assertEquals(s.ciphers(), HandshakeMatrix.plan(h, s.ciphers(), s).runnable(), HandshakeMatrix.text(h));
            // chacha20, added by --ciphers, runs under every combination but TLS 1.2 with RSA key exchange
            List<String> expected = h.equals(Handshake.DEFAULT) ? List.of("tcp", "aes") : withChacha;
            assertEquals(expected, HandshakeMatrix.plan(h, withChacha, s).runnable(), HandshakeMatrix.text(h));
        }
        assertEquals(s.handshakes(), ScenarioFiles.parse(ScenarioFiles.toYaml(s), "x").handshakes(),
                "the list is kept in the YAML a study stores");
    }

    @Test
    void theHandshakesPresetHoldsIdleConnectionsAndTheCountIsKeptInTheYamlAStudyStores() throws IOException {
        Scenario s = ScenarioFiles.load("handshakes");
        assertEquals(1000, s.idleConnections());
        assertEquals(1000, ScenarioFiles.parse(ScenarioFiles.toYaml(s), "x").idleConnections());
        assertEquals(0, ScenarioFiles.load("chain").idleConnections(), "the other presets hold none");
        assertEquals(250, s.withIdleConnections(250).idleConnections());
        assertFalse(ScenarioFiles.toYaml(s.withIdleConnections(0)).contains("idleConnections"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ScenarioFiles.parse("name: x\nidleConnections: 50001\n", "x"));
        assertTrue(e.getMessage().contains("idleConnections: 50001 (expected 0 to 50000)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> s.withIdleConnections(-1));
    }
}
