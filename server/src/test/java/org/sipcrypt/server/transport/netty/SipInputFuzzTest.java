package org.sipcrypt.server.transport.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bytes-to-message path under {@link SipInputFuzzer}: a fixed seed and a fixed count of inputs,
 * so every build checks the same inputs. {@code -Dfuzz.seed}, {@code -Dfuzz.start},
 * {@code -Dfuzz.inputs} and {@code -Dfuzz.threads} change them for a long run or a replay (see
 * {@link SipInputFuzzer}).
 */
class SipInputFuzzTest {

    private static final long SEED = Long.getLong(SipInputFuzzer.SEED, 4475);
    private static final long START = Long.getLong(SipInputFuzzer.START, 0);
    private static final long INPUTS = Long.getLong(SipInputFuzzer.INPUTS, 20_000);
    private static final int THREADS = Integer.getInteger(SipInputFuzzer.THREADS, 1);

    @Test
    void mutatedInputsKeepTheFramingAndParsingInvariants() throws Exception {
        List<byte[]> corpus = SipInputFuzzer.corpus();
        List<SipInputFuzzer> fuzzers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            fuzzers.add(new SipInputFuzzer(corpus));
        }
        // the limit grows with the count asked for (a @Timeout cannot), at many times the time an
        // input takes on a slow machine; a hang fails naming the inputs being checked
        Duration limit = Duration.ofSeconds(60 + INPUTS / 500);
        long started = System.nanoTime();
        assertTimeoutPreemptively(limit, () -> run(fuzzers), () -> "no progress within " + limit + " on "
                + fuzzers.stream().map(SipInputFuzzer::current).collect(Collectors.joining("\n")));
        Map<String, Long> outcomes = new TreeMap<>();
        fuzzers.forEach(f -> f.outcomes().forEach((k, v) -> outcomes.merge(k, v, Long::sum)));
        System.out.printf("fuzz: seed %d, inputs %d to %d on %d threads: %s in %.1f s%n", SEED, START,
                START + INPUTS - 1, THREADS, outcomes, (System.nanoTime() - started) / 1e9);
        assertEquals(INPUTS, outcomes.getOrDefault("inputs", 0L));
        if (INPUTS >= 1_000) {
            // the mutations reach every outcome, or the fuzzer has stopped exploring
            for (String outcome : List.of("framed.message", "framed.ping", "framed.error_missing_content_length",
                    "framed.error_bad_content_length", "framed.error_oversize", "parse.refused", "parse.valid",
                    "answer.400", "readers.agree", "readers.declined")) {
                assertTrue(outcomes.getOrDefault(outcome, 0L) > 0, outcome + " never reached: " + outcomes);
            }
        }
    }

    /** Runs consecutive slices of the inputs, one per fuzzer and thread; rethrows the first failure. */
    private static void run(List<SipInputFuzzer> fuzzers) throws Exception {
        if (fuzzers.size() == 1) {
            fuzzers.get(0).run(SEED, START, INPUTS);
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(fuzzers.size(), r -> new Thread(r, "fuzz"));
        try {
            List<Future<?>> slices = new ArrayList<>();
            long slice = (INPUTS + fuzzers.size() - 1) / fuzzers.size();
            for (int t = 0; t < fuzzers.size(); t++) {
                SipInputFuzzer f = fuzzers.get(t);
                long from = START + t * slice;
                long count = Math.max(0, Math.min(slice, START + INPUTS - from));
                slices.add(pool.submit(() -> f.run(SEED, from, count)));
            }
            for (Future<?> s : slices) {
                try {
                    s.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Error error) {
                        throw error;
                    }
                    throw e;
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void everySeedKeepsTheInvariantsUnmutated() {
        List<byte[]> corpus = SipInputFuzzer.corpus();
        assertTrue(corpus.size() >= 10, "seed corpus of " + corpus.size());
        SipInputFuzzer fuzzer = new SipInputFuzzer(corpus);
        for (byte[] seed : corpus) {
            for (int max : new int[] {256, 65_535}) {
                fuzzer.check(seed, max, new SplittableRandom(max));
            }
        }
        assertTrue(fuzzer.outcomes().getOrDefault("parse.valid", 0L) >= 5, fuzzer.outcomes().toString());
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void anInputDependsOnlyOnTheSeedAndItsIndex() {
        SipInputFuzzer a = new SipInputFuzzer(SipInputFuzzer.corpus());
        SipInputFuzzer b = new SipInputFuzzer(SipInputFuzzer.corpus());
        for (long i : new long[] {0, 1, 17, 9_999_999}) {
            assertArrayEquals(a.mutate(SipInputFuzzer.random(SEED, i)), b.mutate(SipInputFuzzer.random(SEED, i)),
                    "input " + i);
        }
    }
}
