package org.sipcrypt.server.cdr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The bounded queue between the SIP path and the sink: never waits, drops and counts when full. */
@Timeout(30)
class CdrWriterTest {

    @TempDir
    Path dir;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private static CallRecord record(int i) {
        return new CallRecord("call-" + i, Instant.ofEpochSecond(1_800_000_000L + i), null, null, null, null, null,
                "udp", null, null, null, 486, CallRecord.EndedBy.CALLEE);
    }

    private double count(String result) {
        return registry.get("cdr.records").tag("result", result).counter().count();
    }

    @Test
    void aFullQueueDropsAndCountsWithoutWaiting() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch writing = new CountDownLatch(1);
        CdrSink stuck = new CdrSink() {
            @Override
            public void write(List<CallRecord> batch) throws InterruptedException {
                writing.countDown();
                release.await();
            }

            @Override
            public void close() {
            }
        };
        try (CdrWriter writer = new CdrWriter(stuck, 3, registry)) {
            writer.offer(record(0));
            assertTrue(writing.await(10, TimeUnit.SECONDS));
            // the writer holds record 0; three fit in the queue, the rest are dropped at once
            for (int i = 1; i <= 10; i++) {
                writer.offer(record(i));
            }
            assertEquals(7.0, count("dropped"));
            release.countDown();
        }
        assertEquals(4.0, count("written"));
    }

    @Test
    void aFailingSinkCountsItsRecordsAsFailedAndTheNextBatchIsWritten() throws Exception {
        AtomicBoolean down = new AtomicBoolean(true);
        CountDownLatch failedOnce = new CountDownLatch(1);
        Path file = dir.resolve("cdr.jsonl");
        JsonLinesSink lines = new JsonLinesSink(file);
        CdrSink flaky = new CdrSink() {
            @Override
            public void write(List<CallRecord> batch) throws Exception {
                if (down.get()) {
                    failedOnce.countDown();
                    throw new java.sql.SQLTransientConnectionException("database down");
                }
                lines.write(batch);
            }

            @Override
            public void close() throws Exception {
                lines.close();
            }
        };
        try (CdrWriter writer = new CdrWriter(flaky, 100, registry)) {
            writer.offer(record(1));
            assertTrue(failedOnce.await(10, TimeUnit.SECONDS));
            down.set(false);
            writer.offer(record(2));
        }
        assertEquals(1.0, count("failed"));
        assertEquals(1.0, count("written"));
        List<String> written = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals(1, written.size());
        assertTrue(written.get(0).contains("\"call_id\":\"call-2\""), written.get(0));
    }
}
