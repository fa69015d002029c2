package org.sipcrypt.lab.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docker/compose/scale-out.yml} run as the README runs it, briefly, over UDP: the generator
 * registers {@code lab-uac-0@lab.test} through proxy 1 with the UAS as its Contact, then calls it
 * through proxy 2, which has no route for {@code lab.test} and serves it from the PostgreSQL
 * container both proxies share: a call completes only when proxy 2 finds the registration proxy 1
 * stored (else it answers 404 and the call fails). Verdicts: the collector's exit code, calls
 * completed with none failed, both proxy containers' health checks passed, nothing left after
 * {@code down -v}.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class ScaleOutComposeIT {

    @TempDir
    Path work;

    @Test
    void callsThroughProxy2FindTheRegistrationMadeThroughProxy1() throws Exception {
        // one block of free ports: both proxies, their /health, the UAS and PostgreSQL
        int base = Docker.freePorts(6);
        try (DockerCompose compose = new DockerCompose(work, "scale-out.yml")) {
            Path results = compose.load("udp", 10, 3, 1);
            compose.env("PROXY_PORT", Integer.toString(base)).env("PROXY2_PORT", Integer.toString(base + 1))
                    .env("HTTP_PORT", Integer.toString(base + 2)).env("HTTP2_PORT", Integer.toString(base + 3))
                    .env("UAS_PORT", Integer.toString(base + 4)).env("PG_PORT", Integer.toString(base + 5));
            String out = compose.upOrFail();
            assertTrue(out.contains("udp: registering through 127.0.0.1:"), "the generator registered first:\n"
                    + Docker.tail(out));

            Map<String, Map<String, String>> rows = Reports.csvRows(results, "scale-out");
            assertEquals(List.of("udp"), List.copyOf(rows.keySet()), "rows of results.csv");
            Reports.assertCompletedNoneFailed(rows.get("udp"));

            for (String proxy : List.of("proxy1", "proxy2")) {
                compose.assertHealthy(proxy, 1);
            }
            compose.downAndCheckNothingLeft();
        }
    }
}
