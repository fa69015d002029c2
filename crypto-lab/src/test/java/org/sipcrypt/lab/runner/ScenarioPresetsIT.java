package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;
import org.sipcrypt.server.tls.JdkInsecureSuites;

/**
 * Every scenario preset, shortened to 2 s at 20 operations/s after a warm-up of 0.5 s windows, sampled
 * every 0.5 s, against the real server in its own process: no operation fails, every cipher asked for gives a point, and the
 * server's CPU and the lab's own per call, the generator's and (where the scenario reaches it) the
 * UAS's, were measured. Whether the generator kept to its schedule depends
 * on the machine, not on the code: a point flagged invalid for a saturated generator passes here as
 * long as its calls did. The chain runs both baselines and AES; the other presets one or two
 * ciphers each, so that together they cover every cipher (3DES and RC4 on one TLS leg each,
 * Camellia and SEED on per-call connections); the main command runs all of them on the chain.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ScenarioPresetsIT {

    /**
     * The measured part: 40 operations at 20/s, enough for every figure checked. The warm-up (its
     * windows as long as it: a quarter, half and the full rate at least) and the sample interval
     * are short, as a warm-up is whole intervals: what is checked is that every preset runs and is
     * measured, not its figures.
     */
    private static final Duration DURATION = Duration.ofSeconds(2);
    private static final Duration WARMUP = Duration.ofMillis(500);
    private static final Duration INTERVAL = Duration.ofMillis(500);
    private static final int CALLS = 40;

    @TempDir
    Path dir;

    /**
     * SunJSSE reads its refusal of RC4 and 3DES once per JVM, at its first use: the presets that
     * compare them come after others in this JVM, so it is lifted first, as the compare command does.
     */
    @BeforeAll
    static void allowInsecureSuitesInThisJvm() {
        JdkInsecureSuites.allow();
    }

    @ParameterizedTest(name = "{0} with {1}")
    @CsvSource(delimiter = ';', value = {
        "chain;udp,tcp,aes",
        "outbound;aes",
        "inbound;camellia",
        "local;seed",
        "multi-to-one;aes",
        "tls-left;3des",
        "tls-right;rc4",
        "outbound-mutual;aes",
        "outbound-no-reuse;tcp,aes",
        "chain-auth;aes",
        "register;udp",
        "register-auth;aes",
        "refresh;tcp",
        "unregister;aes",
        "invite-not-found;udp",
        "redirect;aes",
    })
    void presetRunsWithoutFailures(String preset, String cipherList) throws Exception {
        List<String> ciphers = Arrays.asList(cipherList.split(","));
        Scenario s = ScenarioFiles.load(preset);
        s = s.withRepeat(1).withLoad(s.load().withRate(20).withTimes(DURATION, WARMUP));
        if (s.generators() > 1) {
            s = s.withGenerators(2);
        }
        Study study = new ScenarioRunner(s, new ScenarioRunner.Options(dir, null, System.out::println, INTERVAL))
                .compare(ciphers, true, false);
        assertEquals(ciphers, study.fixed().stream().map(PointRun::cipher).toList(), "a point per cipher");
        for (PointRun p : study.fixed()) {
            assertEquals(0, p.uac().failed(), p.uac().text());
            assertEquals(CALLS, p.uac().completed(), p.uac().text());
            // a saturated generator (its CPU, or arrivals late by the wall clock) is the lab's verdict on
            // the run, shown in its reports; on a busy machine it says nothing about the code under test
            assertEquals(p.uac().saturated(), p.invalid() != null, "invalid exactly when saturated: " + p.invalid());
            if (p.invalid() != null) {
                assertTrue(p.invalid().startsWith(ScenarioRunner.GENERATOR_SATURATED), p.invalid());
            }
            assertTrue(p.uac().cpuPercent() > 0, "the generator's CPU measured: " + p.uac().text());
            assertTrue(p.server().cpuMicrosPerCall() > 0, "server CPU measured: " + p.server());
            // the lab's own CPU by role: the UAS's from its threads, when the scenario reaches it
            assertTrue(p.labCpu().generatorMicrosPerCall() > 0, "the generator's CPU per call measured: " + p.labCpu());
            if (s.reachesUas()) {
                assertTrue(p.labCpu().uasMicrosPerCall() > 0, "the UAS's CPU per call measured: " + p.labCpu());
            } else {
                assertEquals(-1, p.labCpu().uasMicrosPerCall(), "no UAS: " + p.labCpu());
            }
            assertTrue(p.server().pid() > 0);
            if (s.auth()) {
                assertTrue(p.uac().challenges() >= CALLS, "every operation was challenged: " + p.uac().text());
            }
        }
        if (preset.equals("outbound-no-reuse")) {
            PointRun aes = study.fixed().stream().filter(p -> p.cipher().equals("aes")).findFirst().orElseThrow();
            assertEquals(0, aes.uac().resumed(), "no session resumed: " + aes.uac().text());
            assertTrue(aes.uac().handshakes() >= CALLS, aes.uac().text());
        }
        if (preset.equals("outbound-mutual") || preset.equals("outbound")) {
            assertTrue(study.fixed().get(0).uac().resumed() > 0, "per-call connections resume sessions");
        }
        if (preset.equals("inbound")) {
            assertTrue(study.fixed().get(0).uasHandshakes() >= CALLS, "the proxy made a handshake per call to the UAS");
        }
    }

    /**
     * The {@code handshakes} preset with two of its combinations, RSA key exchange under TLS 1.2 and the
     * ML-KEM hybrid under TLS 1.3, on aes alone (its own list is six combinations of tcp, aes and
     * chacha20, too long for every build; the table's figures from tcp are checked on given numbers in
     * CrossCombinationsTest): a study per combination, a full handshake per call made and sized, and
     * the cross-combination table a row for each.
     */
    @Test
    void handshakesPresetRunsAStudyPerCombination() throws Exception {
        Scenario s = ScenarioFiles.load("handshakes");
        // its idle connections are HandshakeCompareIT's to check, not each build's twice
        s = s.withRepeat(1).withLoad(s.load().withRate(20).withTimes(DURATION, WARMUP)).withIdleConnections(0);
        List<Study> studies = new ArrayList<>();
        for (Handshake h : HandshakeMatrix.parse(List.of("1.2/rsa", "1.3/x25519mlkem768"))) {
            HandshakeMatrix.Combination c = HandshakeMatrix.plan(h, List.of("aes"), s);
            studies.add(new ScenarioRunner(s, new ScenarioRunner.Options(dir, null, System.out::println, INTERVAL)
                    .withHandshake(h)).compare(c.runnable(), true, false));
        }
        List<Integer> clientHellos = new ArrayList<>();
        for (Study study : studies) {
            assertEquals(List.of("aes"), study.fixed().stream().map(PointRun::cipher).toList());
            for (PointRun p : study.fixed()) {
                assertEquals(0, p.uac().failed(), p.uac().text());
                assertEquals(CALLS, p.uac().completed(), p.uac().text());
            }
            PointRun aes = study.fixed().get(0);
            assertEquals(0, aes.uac().resumed(), "a full handshake per call: " + aes.uac().text());
            assertTrue(aes.uac().handshakes() >= CALLS, aes.uac().text());
            clientHellos.add(aes.uac().fullHandshake().clientHelloBytes());
        }
        // the hybrid's key share (RFC draft-ietf-tls-ecdhe-mlkem: 1,184 bytes of ML-KEM-768 beside X25519's 32)
        assertTrue(clientHellos.get(1) > clientHellos.get(0) + 1000, clientHellos.toString());
        String md = org.sipcrypt.lab.report.MarkdownReport.render(studies, null);
        String cross = md.substring(md.indexOf("## Handshake combinations: handshakes"));
        assertTrue(cross.contains("| 1.2/rsa |") && cross.contains("| 1.3/x25519mlkem768 |"), cross);
    }
}
