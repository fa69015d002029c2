package org.sipcrypt.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.config.TlsDomainConfig;
import org.sipcrypt.server.config.TlsPeerConfig;
import org.sipcrypt.server.http.AdminApi;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.tls.LabCertificates;
import org.sipcrypt.server.tls.PemFiles;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;
import org.sipcrypt.server.transport.netty.tls.TlsStage;

@Timeout(60)
class TlsReloadsTest {

    @TempDir
    Path dir;

    private void write(Path pem, Path key, X509Certificate cert, PrivateKey privateKey) throws Exception {
        Path newPem = dir.resolve("new.pem");
        Path newKey = dir.resolve("new.key");
        Files.deleteIfExists(newPem);
        Files.deleteIfExists(newKey);
        PemFiles.writeCertificates(newPem, List.of(cert));
        PemFiles.writePrivateKey(newKey, privateKey);
        Files.move(newPem, pem, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.move(newKey, key, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void changedFilesAreReloadedByTheWatchAndABadSetKeepsTheOldOne() throws Exception {
        LabCertificates ca = LabCertificates.create("reload test CA", LabCertificates.KeyType.ECDSA, 2048,
                Duration.ofDays(2));
        Path pem = dir.resolve("default.pem");
        Path key = dir.resolve("default.key");
        Path aPem = dir.resolve("a.pem");
        Path aKey = dir.resolve("a.key");
        LabCertificates.Issued own = ca.server(List.of("127.0.0.1"));
        write(pem, key, own.certificate(), own.keys().getPrivate());
        LabCertificates.Issued a1 = ca.server(List.of("a.example.test"));
        write(aPem, aKey, a1.certificate(), a1.keys().getPrivate());
        TlsConfig config = new TlsConfig.Builder().cert(pem).key(key).engine(TlsEngine.BC)
                .domains(List.of(new TlsDomainConfig("a.example.test", aPem, aKey)))
                .watchInterval(Duration.ofMillis(50)).build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ScheduledThreadPoolExecutor housekeeping = new ScheduledThreadPoolExecutor(1);
        try (TlsStage stage = TlsStage.forListener(config, CipherSuiteRegistry.load());
             TlsReloads reloads = new TlsReloads(stage, config, housekeeping, registry)) {
            assertEquals(a1.certificate().getNotAfter().toInstant().getEpochSecond(),
                    registry.get("tls.certificate.not.after").tag("domain", "a.example.test").gauge().value());

            LabCertificates.Issued a2 = ca.server(List.of("a.example.test"));
            write(aPem, aKey, a2.certificate(), a2.keys().getPrivate());
            Await.until(() -> registry.get("tls.reloads").tag("result", "ok").counter().count() == 1,
                    Duration.ofSeconds(20), () -> "no reload after the files changed");
            assertEquals(a2.certificate(), stage.identities().named("a.example.test").leaf());
            assertEquals(own.certificate(), stage.identities().fallback().leaf(), "the default as it was");

            write(aPem, aKey, ca.server(List.of("a.example.test")).certificate(), own.keys().getPrivate());
            Await.until(() -> registry.get("tls.reloads").tag("result", "failed").counter().count() == 1,
                    Duration.ofSeconds(20), () -> "no failed reload after a mismatched key");
            assertEquals(a2.certificate(), stage.identities().named("a.example.test").leaf(),
                    "the certificate presented before the bad files");

            AdminApi.TlsReloaded asked = reloads.reload("test").get();
            assertFalse(asked.ok());
            assertTrue(asked.message().contains("tls.domain a.example.test"), asked.message());
            assertEquals(2.0, registry.get("tls.reloads").tag("result", "failed").counter().count());
        } finally {
            housekeeping.shutdownNow();
        }
    }

    @Test
    void aPeersTrustFileIsWatchedAndABadOneKeepsTheAnchors() throws Exception {
        LabCertificates before = LabCertificates.create("peer CA before", LabCertificates.KeyType.ECDSA, 2048,
                Duration.ofDays(2));
        LabCertificates after = LabCertificates.create("peer CA after", LabCertificates.KeyType.ECDSA, 2048,
                Duration.ofDays(2));
        Path trust = dir.resolve("peer-ca.pem");
        PemFiles.writeCertificates(trust, List.of(before.caCertificate()));
        TlsConfig config = new TlsConfig.Builder().engine(TlsEngine.JSSE)
                .peers(List.of(TlsPeerConfig.parse("127.0.0.1:5061;trust=" + trust)))
                .watchInterval(Duration.ofMillis(50)).build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ScheduledThreadPoolExecutor housekeeping = new ScheduledThreadPoolExecutor(1);
        CipherSuiteRegistry suites = CipherSuiteRegistry.load();
        try (TlsStage stage = TlsStage.forListener(config, suites);
             TlsStage peer = TlsStage.forPeer(config.peers().get(0), config, suites);
             TlsReloads reloads = new TlsReloads(stage, List.of(peer), config, housekeeping, registry)) {
            assertEquals(List.of(before.caCertificate()), List.of(peer.trust().getAcceptedIssuers()));

            Path next = dir.resolve("next.pem");
            PemFiles.writeCertificates(next, List.of(after.caCertificate()));
            Files.move(next, trust, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Await.until(() -> registry.get("tls.reloads").tag("result", "ok").counter().count() == 1,
                    Duration.ofSeconds(20), () -> "no reload after the peer's trust file changed");
            assertEquals(List.of(after.caCertificate()), List.of(peer.trust().getAcceptedIssuers()));

            Files.writeString(next, "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n");
            Files.move(next, trust, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            Await.until(() -> registry.get("tls.reloads").tag("result", "failed").counter().count() == 1,
                    Duration.ofSeconds(20), () -> "no failed reload after a bad trust file");
            assertEquals(List.of(after.caCertificate()), List.of(peer.trust().getAcceptedIssuers()),
                    "the anchors before the bad file");
            AdminApi.TlsReloaded asked = reloads.reload("test").get();
            assertFalse(asked.ok());
            assertTrue(asked.message().contains("TLS to 127.0.0.1:5061") && asked.message().contains("tls.trust"),
                    asked.message());
        } finally {
            housekeeping.shutdownNow();
        }
    }
}
