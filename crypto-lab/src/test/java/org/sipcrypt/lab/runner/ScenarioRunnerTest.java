package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The order the runner measures in and the progress it tells. */
class ScenarioRunnerTest {

    @Test
    void repetitionsAreInterleavedInARotatedOrder() {
        List<String> ciphers = List.of("udp", "tcp", "aes", "3des");
        assertEquals(ciphers, ScenarioRunner.interleaved(ciphers, 1));
        assertEquals(List.of("tcp", "aes", "3des", "udp"), ScenarioRunner.interleaved(ciphers, 2));
        assertEquals(List.of("3des", "udp", "tcp", "aes"), ScenarioRunner.interleaved(ciphers, 4));
        assertEquals(ciphers, ScenarioRunner.interleaved(ciphers, 5));
        assertEquals(List.of(), ScenarioRunner.interleaved(List.of(), 3));
    }

    @Test
    void progressSaysWhichPointOfHowManyAndTheTimeLeft() {
        ScenarioRunner.Progress p = new ScenarioRunner.Progress(3);
        assertEquals("[1/3]", p.next());
        assertTrue(p.next().matches("\\[2/3, \\d+ s left]"));
        assertTrue(p.next().matches("\\[3/3, \\d+ s left]"));
        assertEquals("45 s", ScenarioRunner.Progress.duration(TimeUnit.SECONDS.toNanos(45)));
        assertEquals("13 min", ScenarioRunner.Progress.duration(TimeUnit.SECONDS.toNanos(12 * 60 + 40)));
        assertEquals("2 h 05 min", ScenarioRunner.Progress.duration(TimeUnit.MINUTES.toNanos(125)));
    }
}
