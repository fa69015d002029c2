package org.sipcrypt.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Keeps the module from rotting: one real benchmark (an AES record protected on the bc engine with
 * JCA crypto, 400 bytes, which needs certificates, a handshake and the server's record layer) run
 * through JMH in this JVM with one short warm-up and measurement iteration, and its summary row;
 * and the openssl engine's handshakes of every kind on the server's own TLS stage.
 */
class BenchmarkSmokeTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void oneRecordLayerBenchmarkRunsAndGivesAPositiveScore() throws Exception {
        Options options = smoke(RecordLayerBenchmark.class.getName() + "\\.protect$")
                .param("row", "aes/bc/jca")
                .param("size", "400")
                .build();
        assertEquals(List.of("RecordLayerBenchmark.protect row=aes/bc/jca size=400"), BenchmarkMain.planned(options));

        Collection<RunResult> results = new Runner(options).run();

        assertEquals(1, results.size());
        RunResult result = results.iterator().next();
        assertTrue(result.getPrimaryResult().getScore() > 0, "score " + result.getPrimaryResult());
        String summary = new MarkdownSummary(results, List.of(), null, "not measured").render();
        assertTrue(summary.contains("| `aes/bc/jca` | 400 | "), summary);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void opensslHandshakesOfEveryKindRunOnTheServersOwnStage() throws Exception {
        Options options = smoke(OpensslHandshakeBenchmark.class.getName() + "\\.handshake$").build();

        // each handshake fails the run unless it resumed as its kind asks and negotiated its kind's suite
        Collection<RunResult> results = new Runner(options).run();

        assertEquals(4, results.size());
        for (RunResult r : results) {
            assertTrue(r.getPrimaryResult().getScore() > 0, r.getParams().getParam("kind") + ": " + r.getPrimaryResult());
        }
    }

    /** In this JVM, one 100 ms warm-up and one 100 ms measurement, a failure failing the run, silent. */
    private static ChainedOptionsBuilder smoke(String include) {
        return new OptionsBuilder()
                .include(include)
                .forks(0)
                .warmupIterations(1)
                .warmupTime(TimeValue.milliseconds(100))
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(100))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT);
    }
}
