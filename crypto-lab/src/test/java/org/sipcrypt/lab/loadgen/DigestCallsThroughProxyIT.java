package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.SipcryptServer;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * Calls as provisioned users through the real server with digest authentication on: each INVITE is
 * challenged with 407, ACKed, sent again with Proxy-Authorization for the only algorithm the server
 * offers, and forwarded by a static route to the lab UAS; ACK and BYE follow the route set.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DigestCallsThroughProxyIT {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} over {1}")
    @CsvSource({"md5, UDP", "md5, TCP", "sha-256, UDP", "sha-256, TCP"})
    void everyChallengedCallIsAnsweredAndCompletes(String algorithm, Transport t) throws Exception {
        List<Credential> users = CredentialFiles.read(RegistrarWorkloadsIT.provision(dir, 5));
        try (Uas uas = new Uas()) {
            InetSocketAddress uasAt = uas.listen(Transport.UDP, new InetSocketAddress(RegistrarWorkloadsIT.LOOPBACK, 0),
                    null);
            try (SipcryptServer server = RegistrarWorkloadsIT.server(dir, "auth", "true", "auth.algorithms", algorithm,
                    "route", "lab.test=127.0.0.1:" + uasAt.getPort() + ";transport=udp")) {
                UacOptions o = new UacOptions(server.address(t), t, ConnectionPattern.PERSISTENT, null, 10,
                        Duration.ofSeconds(2), Duration.ZERO, Duration.ofSeconds(5), Duration.ZERO, 1.0,
                        "sip:lab-uas@lab.test", RegistrarWorkloadsIT.LOOPBACK, Duration.ofSeconds(1))
                        .withUsers(users);
                List<Interval> samples = new ArrayList<>();
                RunSummary r = new Uac(o).run(samples::add);
                UacThroughProxyOverTlsIT.assertEveryCallCompleted(r, 20, uas);
                assertEquals(20, r.challenges(), "one 407 per call: " + r.text());
                assertEquals(20, uas.requests("INVITE"), "only the authenticated INVITEs reached the UAS");
                assertTrue(r.description().contains("digest auth as 5 users"), r.description());
            }
        }
    }
}
