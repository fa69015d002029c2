package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;

/**
 * Kamailio (Debian's package, which CI installs) as the server under test: the chain over UDP and
 * TLS-AES at a low rate through a configuration the lab writes, every call completed, its CPU
 * measured over all of its processes, and the ciphers it cannot run said and left out.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KamailioServerIT {

    @TempDir
    Path dir;

    @Test
    void theChainRunsThroughKamailioOverUdpAndTlsAes() throws Exception {
        Scenario s = ScenarioFiles.load("chain");
        s = s.withRepeat(1).withLoad(s.load().withRate(20).withTimes(Duration.ofSeconds(3), Duration.ofSeconds(1)));
        List<String> said = new ArrayList<>();
        Study study = new ScenarioRunner(s, new ScenarioRunner.Options(dir, null, line -> {
            System.out.println(line);
            said.add(line);
        }, Duration.ofSeconds(1), CpuPinning.OFF, ServerUnderTest.KAMAILIO)).compare(List.of("udp", "aes", "3des"), true,
                false);
        assertEquals("chain-kamailio", study.scenario());
        assertEquals(List.of("udp", "aes"), study.ciphers(), "3DES is left out: OpenSSL 3 has no such suite");
        assertTrue(said.stream().anyMatch(l -> l.contains("3des on kamailio: not run: Debian's Kamailio uses OpenSSL 3")),
                said.toString());
        assertEquals(List.of("udp", "aes"), study.fixed().stream().map(PointRun::cipher).toList());
        for (PointRun p : study.fixed()) {
            assertEquals(0, p.uac().failed(), p.uac().text());
            assertEquals(60, p.uac().completed(), p.uac().text());
            assertTrue(p.server().cpuMicrosPerCall() > 0, "Kamailio's CPU measured: " + p.server());
            assertEquals(-1, p.server().heapAfterGcBytes(), "no JVM heap to read");
        }
        // the UAS of the aes point listens on TLS only, with that one suite: its calls went through
        // Kamailio's TLS on both legs
    }

    @Test
    void whatKamailioCannotRunIsSaid() throws Exception {
        assertNull(KamailioServer.unsupported(ScenarioFiles.load("chain"), "camellia"));
        assertNull(KamailioServer.unsupported(ScenarioFiles.load("outbound"), "aes"));
        assertNotNull(KamailioServer.unsupported(ScenarioFiles.load("chain"), "rc4"));
        assertTrue(KamailioServer.unsupported(ScenarioFiles.load("local"), "aes").contains("connection per call"));
        assertTrue(KamailioServer.unsupported(ScenarioFiles.load("register"), "udp").contains("call scenarios only"));
        assertFalse(KamailioServer.unsupported(ScenarioFiles.load("chain-auth"), "udp").isEmpty());
    }
}
