package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.transport.ConnectionPattern;

/**
 * RC4 on the generator's SunJSSE client against the server's jsse engine, both with the lab's
 * insecure switch. SunJSSE reads {@code jdk.tls.disabledAlgorithms} once per JVM, so this class runs
 * in a JVM of its own (failsafe does not reuse forks in this module).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class Rc4ThroughProxyOverJsseIT {

    @TempDir
    Path dir;

    @Test
    void rc4CallsRunOnTheSunJsseClientWhenInsecureSuitesAreAllowed() throws Exception {
        try (Uas uas = UacThroughProxyOverTlsIT.uas(dir)) {
            TlsOptions tls = new TlsOptions(List.of("rc4"), "jsse", List.of(), List.of("1.2"),
                    dir.resolve("certs/ca.pem"), null, null, true, BcTlsSetup.ClientCertificates.NONE, true);
            RunSummary r = UacThroughProxyOverTlsIT.callThroughServer(dir, uas, UacThroughProxyOverTlsIT.listenUdp(uas),
                    tls, ConnectionPattern.PERSISTENT, "tls.ciphers", "rc4", "tls.engine", "jsse",
                    "tls.allowInsecure", "true");
            assertEquals(1, r.handshakes(), r.text());
            assertTrue(r.description().contains("jsse rc4"), r.description());
        }
    }
}
