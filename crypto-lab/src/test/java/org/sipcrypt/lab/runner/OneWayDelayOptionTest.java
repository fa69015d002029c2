package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sipcrypt.lab.loadgen.UacOptions;
import org.sipcrypt.lab.store.LabJson;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * {@code compare --one-way-delay}: handed to every generator process's command line, stored with the
 * study's environment (and read back from it), and said in the reports' environment line.
 */
class OneWayDelayOptionTest {

    private static UacOptions options() {
        InetAddress lo = InetAddress.getLoopbackAddress();
        return new UacOptions(new InetSocketAddress(lo, 5060), Transport.TCP, ConnectionPattern.PER_CALL, null, 10,
                Duration.ofSeconds(1), Duration.ZERO, Duration.ofSeconds(5), Duration.ZERO, 1, "sip:lab-uas@lab.test",
                lo, Duration.ofSeconds(1));
    }

    @Test
    void generatorProcessesAreGivenTheDelay() {
        List<String> args = Generators.uacArgs(options().withOneWayDelay(Duration.ofMillis(20)), 10, Path.of("u.json"),
                Instant.now());
        int i = args.indexOf("--one-way-delay");
        assertTrue(i >= 0, args.toString());
        assertEquals("0.020000s", args.get(i + 1));
        assertFalse(Generators.uacArgs(options(), 10, Path.of("u.json"), Instant.now()).contains("--one-way-delay"),
                "no delay, no option");
    }

    @Test
    void theDelayIsStoredWithTheEnvironmentAndDescribed() throws Exception {
        Environment e = new Environment("jvm", "cpu", 2, "os", "host", "0.1.0").withPinning("nothing pinned", 2)
                .withDelay(Duration.ofMillis(20));
        assertEquals(20.0, e.oneWayDelayMs());
        assertEquals(Environment.LAB_DELAY_STAGE, e.delayMethod());
        assertEquals("20 ms each way per leg (lab delay stage)", e.delayDescribed());
        Environment back = LabJson.read(LabJson.write(e), Environment.class);
        assertEquals(e, back);
        assertEquals("none", e.withDelay(Duration.ZERO).delayDescribed());
        // a study stored before the lab could delay reads back as without delay
        Environment old = LabJson.read("{\"jvm\":\"j\",\"cpuModel\":\"c\",\"cores\":2,\"os\":\"o\",\"host\":\"h\","
                + "\"labVersion\":\"v\",\"pinning\":null,\"serverCpus\":0}", Environment.class);
        assertEquals("none", old.delayDescribed());
    }

    @Test
    void aDelayOutOfRangeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> options().withOneWayDelay(Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class, () -> options().withOneWayDelay(Duration.ofSeconds(11)));
    }
}
