package org.sipcrypt.lab.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docker/compose/chain.yml} run as the README runs it: the images built from what Maven
 * packaged, a sipcrypt proxy container, a UAS container, a generator container and the lab's
 * collector, UDP and TLS-AES at 10 calls/s for 4 s each. Verdicts: the collector's exit code, no
 * failed call in the report's two rows, the proxy container's health check passed, and nothing of
 * the project left after {@code down -v}.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class ChainComposeIT {

    @TempDir
    Path work;

    @Test
    void udpAndAesCallsPassThroughTheProxyContainerIntoOneReport() throws Exception {
        // one block of free ports: two ciphers each for the proxy, the UAS and /health
        int proxy = Docker.freePorts(6);
        int uas = proxy + 2;
        int http = proxy + 4;
        try (DockerCompose compose = new DockerCompose(work, "chain.yml")) {
            Path results = compose.load("udp,aes", 10, 4, 2);
            compose.env("PROXY_PORT", Integer.toString(proxy)).env("UAS_PORT", Integer.toString(uas))
                    .env("HTTP_PORT", Integer.toString(http));
            compose.upOrFail();

            Map<String, Map<String, String>> rows = Reports.csvRows(results, "chain");
            assertEquals(List.of("aes", "udp"), List.copyOf(new TreeMap<>(rows).keySet()), "rows of results.csv");
            for (Map<String, String> row : rows.values()) {
                Reports.assertCompletedNoneFailed(row);
                assertEquals(10.0, Double.parseDouble(row.get("rate")), "offered rate of " + row);
            }
            String md = Reports.reportMd(results, "chain");
            assertTrue(md.contains("| udp |") && md.contains("| aes |"), md);

            compose.assertHealthy("proxy", 2);

            compose.downAndCheckNothingLeft();
        }
    }
}
