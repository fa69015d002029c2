package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;

/**
 * Every scenario preset, shortened to a few seconds at a low rate, against the real server in its
 * own process: no call fails and every cipher asked for gives a point.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ScenarioPresetsIT {

    @TempDir
    Path dir;

    private Study quick(String preset, List<String> ciphers) throws Exception {
        Scenario s = ScenarioFiles.load(preset);
        s = s.withRepeat(1).withLoad(s.load().withRate(20).withTimes(Duration.ofSeconds(3), Duration.ofSeconds(1)));
        ScenarioRunner r = new ScenarioRunner(s, new ScenarioRunner.Options(dir, null, System.out::println,
                Duration.ofSeconds(1)));
        Study study = r.compare(ciphers, true, false);
        assertEquals(ciphers.size(), study.fixed().size());
        for (PointRun p : study.fixed()) {
            assertEquals(0, p.uac().failed(), p.uac().text());
            assertEquals(60, p.uac().completed(), p.uac().text());
            assertNull(p.invalid());
            assertTrue(p.server().cpuMicrosPerCall() > 0, "server CPU measured: " + p.server());
        }
        return study;
    }

    @Test
    void chainRunsEveryCipherAndBaseline() throws Exception {
        quick("chain", List.of("udp", "tcp", "aes", "camellia"));
    }
}
