package org.sipcrypt.lab.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.lab.LabMain;
import org.sipcrypt.lab.loadgen.TlsOptions;
import org.sipcrypt.lab.loadgen.UacOptions;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;
import org.sipcrypt.lab.store.LabJson;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * {@code compare --tls-version} and {@code --kx}: parsed and refused by name, mapped to one suite
 * per cipher and one group, handed to the server's command line, to the lab's TLS sides and to
 * generator processes, and stored with the study's environment.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HandshakeTest {

    private static final Path CERTS = Path.of("certs");

    @Test
    void theDefaultIsTls12WithTheProvidersRsaSuites() {
        Handshake h = Handshake.parse("1.2", "rsa");
        assertEquals(Handshake.DEFAULT, h);
        assertTrue(h.isDefault());
        assertNull(h.group());
        assertEquals("TLS_RSA_WITH_AES_128_CBC_SHA", h.suite("aes"));
        assertEquals("TLS_RSA_WITH_SEED_CBC_SHA", h.suite("seed"));
        assertEquals("TLS_RSA_WITH_RC4_128_SHA", h.suite("rc4"));
        assertEquals("tcp", h.suite("tcp"), "a baseline is no provider");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> h.check(List.of("chacha20", "tcp"), Map.of()));
        assertTrue(e.getMessage().startsWith("chacha20: no suite for TLS 1.2, rsa (a TLS_RSA_WITH_ suite)"),
                e.getMessage());
    }

    @Test
    void tls13MapsEachProviderToItsTls13Suite() {
        Handshake h = Handshake.parse("1.3", "ecdhe-x25519");
        assertEquals("TLS_AES_128_GCM_SHA256", h.suite("aes"));
        assertEquals("TLS_CHACHA20_POLY1305_SHA256", h.suite("chacha20"));
        assertEquals("x25519", h.group().configName());
        assertEquals("TLS 1.3, ecdhe-x25519", h.describe());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> h.suite("camellia"));
        assertTrue(e.getMessage().contains("camellia has no suite for TLS 1.3"), e.getMessage());
    }

    @Test
    void ecdheUnderTls12TakesTheEcdheRsaSuiteOfTheSameBulkCipher() {
        Handshake h = Handshake.parse("1.2", "ecdhe-p256");
        assertEquals("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", h.suite("aes"));
        assertEquals("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", h.suite("chacha20"));
        assertEquals("secp256r1", h.group().configName());
        assertEquals("x25519mlkem768", Handshake.parse("1.3", "X25519MLKEM768").group().configName());
    }

    @Test
    void badValuesAndRsaUnderTls13AreRefusedByOption() {
        IllegalArgumentException v = assertThrows(IllegalArgumentException.class, () -> Handshake.parse("1.1", "rsa"));
        assertTrue(v.getMessage().startsWith("--tls-version: \"1.1\""), v.getMessage());
        IllegalArgumentException k = assertThrows(IllegalArgumentException.class, () -> Handshake.parse("1.2", "dh"));
        assertTrue(k.getMessage().startsWith("--kx: \"dh\" (expected rsa, ecdhe-p256, ecdhe-x25519, x25519mlkem768)"),
                k.getMessage());
        IllegalArgumentException r = assertThrows(IllegalArgumentException.class, () -> Handshake.parse("1.3", "rsa"));
        assertTrue(r.getMessage().contains("TLS 1.3 has no RSA key exchange"), r.getMessage());
        IllegalArgumentException h = assertThrows(IllegalArgumentException.class,
                () -> Handshake.parse("1.2", "x25519mlkem768"));
        assertTrue(h.getMessage().contains("hybrids are TLS 1.3 key exchanges"), h.getMessage());
    }

    @Test
    void aComparisonWithCiphersThatHaveNoSuiteIsRefusedSayingWhatCanRun() {
        Handshake h = Handshake.parse("1.3", "ecdhe-p256");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> h.check(List.of("aes", "3des", "seed", "tcp"), Map.of()));
        assertTrue(e.getMessage().startsWith("3des, seed: no suite for TLS 1.3, ecdhe-p256"), e.getMessage());
        assertTrue(e.getMessage().endsWith("these can run: --ciphers aes,tcp"), e.getMessage());
        h.check(List.of("aes", "chacha20", "udp", "tcp"), Map.of());
        // camellia, 3DES and RC4 have ECDHE suites for ECDSA keys only; the lab's certificates are RSA
        assertThrows(IllegalArgumentException.class,
                () -> Handshake.parse("1.2", "ecdhe-x25519").check(List.of("camellia"), Map.of()));
        Handshake.DEFAULT.check(List.of("aes", "3des", "camellia", "seed", "rc4", "udp", "tcp"), Map.of());
    }

    @Test
    void aHybridIsRefusedWhenTheScenarioPutsTheServerOnAnotherEngine() {
        Handshake h = Handshake.parse("1.3", "x25519mlkem768");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> h.check(List.of("aes"), Map.of("tls.engine", "jsse")));
        assertTrue(e.getMessage().contains("bc TLS engine only"), e.getMessage());
        h.check(List.of("aes"), Map.of("tls.engine", "bc"));
        h.check(List.of("aes"), Map.of());
        // an ECDHE group runs on every engine
        Handshake.parse("1.3", "ecdhe-x25519").check(List.of("aes"), Map.of("tls.engine", "jsse"));
    }

    @Test
    void theServerOffersTheVersionTheSuiteAndTheGroupAlone() throws Exception {
        Scenario s = ScenarioFiles.load("chain");
        InetSocketAddress uas = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5090);
        List<String> args = Bench.serverArgs(s, "aes", Handshake.parse("1.3", "ecdhe-x25519"), Path.of("d"), CERTS, uas);
        assertEquals("TLS_AES_128_GCM_SHA256", after(args, "--tls-ciphers"));
        assertEquals("1.3", after(args, "--tls-versions"));
        assertEquals("x25519", after(args, "--tls-groups"));
        assertTrue(after(args, "--tls-peer").contains(";ciphers=TLS_AES_128_GCM_SHA256;versions=1.3;"),
                after(args, "--tls-peer"));
        List<String> today = Bench.serverArgs(s, "aes", Handshake.DEFAULT, Path.of("d"), CERTS, uas);
        assertEquals("TLS_RSA_WITH_AES_128_CBC_SHA", after(today, "--tls-ciphers"));
        assertEquals("1.2", after(today, "--tls-versions"));
        assertFalse(today.contains("--tls-groups"), "RSA key exchange: the server's default groups");
    }

    @Test
    void theLabSidesOfferTheGroupAloneOnTheBcEngineAndGeneratorProcessesAreToldSo() {
        TlsOptions t = Bench.labTls("aes", Handshake.parse("1.2", "ecdhe-p256"), CERTS.resolve("ca.pem"), null, null,
                true, BcTlsSetup.ClientCertificates.NONE);
        assertEquals(List.of("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"), t.ciphers());
        assertEquals(List.of("1.2"), t.versions());
        assertEquals(List.of("secp256r1"), t.groups());
        assertEquals("bc", t.engine());
        TlsOptions today = Bench.labTls("aes", Handshake.DEFAULT, CERTS.resolve("ca.pem"), null, null, true,
                BcTlsSetup.ClientCertificates.NONE);
        assertEquals(List.of(), today.groups());
        assertNull(today.engine(), "RSA key exchange: the engine picked by suite, as before");

        InetAddress lo = InetAddress.getLoopbackAddress();
        UacOptions o = new UacOptions(new InetSocketAddress(lo, 5061), Transport.TLS, ConnectionPattern.PER_CALL, t, 10,
                Duration.ofSeconds(1), Duration.ZERO, Duration.ofSeconds(5), Duration.ZERO, 1, "sip:lab-uas@lab.test",
                lo, Duration.ofSeconds(1));
        List<String> args = Generators.uacArgs(o, 10, Path.of("u.json"), Instant.now());
        assertEquals("secp256r1", after(args, "--tls-groups"));
        assertEquals("1.2", after(args, "--tls-versions"));
        UacOptions before = new UacOptions(o.target(), Transport.TLS, ConnectionPattern.PER_CALL, today, 10,
                Duration.ofSeconds(1), Duration.ZERO, Duration.ofSeconds(5), Duration.ZERO, 1, "sip:lab-uas@lab.test",
                lo, Duration.ofSeconds(1));
        assertFalse(Generators.uacArgs(before, 10, Path.of("u.json"), Instant.now()).contains("--tls-groups"));
    }

    @Test
    void theHandshakeIsStoredWithTheEnvironmentAndOldStudiesReadAsTls12Rsa() throws Exception {
        Environment e = new Environment("jvm", "cpu", 2, "os", "host", "0.1.0").withHandshake("1.3", "ecdhe-x25519")
                .withDelay(Duration.ofMillis(5)).withPinning("nothing pinned", 2);
        assertEquals("TLS 1.3, ecdhe-x25519", e.handshakeDescribed());
        assertEquals(e, LabJson.read(LabJson.write(e), Environment.class));
        Environment old = LabJson.read("{\"jvm\":\"j\",\"cpuModel\":\"c\",\"cores\":2,\"os\":\"o\",\"host\":\"h\","
                + "\"labVersion\":\"v\",\"pinning\":null,\"serverCpus\":0}", Environment.class);
        assertEquals("TLS 1.2, rsa", old.handshakeDescribed());
    }

    @Test
    void compareRefusesAnImpossibleComparisonBeforeAnythingStarts() {
        StringWriter out = new StringWriter();
        CommandLine cl = LabMain.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(out));
        int rc = cl.execute("compare", "--scenario", "chain", "--ciphers", "aes,3des", "--tls-version", "1.3",
                "--kx", "ecdhe-x25519", "--out", Path.of("target", "handshake-refused").toString(), "--db",
                "jdbc:h2:mem:handshake-refused");
        assertEquals(2, rc, out.toString());
        assertTrue(out.toString().contains("3des: no suite for TLS 1.3, ecdhe-x25519"), out.toString());
        rc = cl.execute("compare", "--scenario", "chain", "--ciphers", "aes", "--tls-version", "1.3",
                "--out", Path.of("target", "handshake-refused").toString(), "--db", "jdbc:h2:mem:handshake-refused");
        assertEquals(2, rc, out.toString());
        assertTrue(out.toString().contains("TLS 1.3 has no RSA key exchange"), out.toString());
        rc = cl.execute("compare", "--scenario", "outbound", "--ciphers", "aes", "--cert", "ecdsa-p256",
                "--out", Path.of("target", "handshake-refused").toString(), "--db", "jdbc:h2:mem:handshake-refused");
        assertEquals(2, rc, out.toString());
        assertTrue(out.toString().contains("--cert: ecdsa-p256 with --kx rsa"), out.toString());
        rc = cl.execute("compare", "--scenario", "outbound", "--ciphers", "aes", "--tls-version", "1.2", "--kx",
                "ecdhe-x25519", "--resumption", "psk", "--out", Path.of("target", "handshake-refused").toString(),
                "--db", "jdbc:h2:mem:handshake-refused");
        assertEquals(2, rc, out.toString());
        assertTrue(out.toString().contains("--resumption: psk with --tls-version 1.2"), out.toString());
    }

    @Test
    void anEcdsaCertificateRunsTheEcdheEcdsaSuiteUnderTls12AndAnySuiteUnderTls13() {
        Handshake h = Handshake.parse("1.2", "ecdhe-p256", "ecdsa-p256", null);
        assertEquals("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", h.suite("aes"));
        assertEquals("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", h.suite("chacha20"));
        assertEquals("TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA", h.suite("3des"));
        assertEquals("TLS 1.2, ecdhe-p256, ecdsa-p256", h.describe());
        assertFalse(h.isDefault());
        IllegalArgumentException seed = assertThrows(IllegalArgumentException.class,
                () -> h.check(List.of("aes", "seed"), Map.of()));
        assertTrue(seed.getMessage().startsWith("seed: no suite for TLS 1.2, ecdhe-p256, ecdsa-p256 (a"
                + " TLS_ECDHE_ECDSA_WITH_ suite for ecdsa-p256 certificates); these can run: --ciphers aes"),
                seed.getMessage());
        assertEquals("TLS_AES_128_GCM_SHA256", Handshake.parse("1.3", "ecdhe-x25519", "ecdsa-p256", null).suite("aes"));
        assertEquals("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
                Handshake.parse("1.2", "ecdhe-x25519", "rsa3072", null).suite("aes"));
        assertEquals("TLS_RSA_WITH_AES_128_CBC_SHA", Handshake.parse("1.2", "rsa", "rsa3072", null).suite("aes"));
        IllegalArgumentException rsaKx = assertThrows(IllegalArgumentException.class,
                () -> Handshake.parse("1.2", "rsa", "ecdsa-p256", null));
        assertTrue(rsaKx.getMessage().startsWith("--cert: ecdsa-p256 with --kx rsa"), rsaKx.getMessage());
        IllegalArgumentException curve = assertThrows(IllegalArgumentException.class,
                () -> Handshake.parse("1.2", "ecdhe-x25519", "ecdsa-p256", null));
        assertTrue(curve.getMessage().contains("RFC 8422 §5.1"), curve.getMessage());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Handshake.parse("1.2", "rsa", "dsa1024", null));
        assertEquals("--cert: \"dsa1024\" (expected rsa2048, rsa3072, ecdsa-p256)", unknown.getMessage());
        assertEquals(List.of("--key-type", "ecdsa"), Handshake.Certificate.ECDSA_P256.certsArguments());
        assertEquals(List.of("--key-type", "rsa", "--rsa-bits", "3072"), Handshake.Certificate.RSA3072.certsArguments());
    }

    @Test
    void resumptionDecidesWhatTheGeneratorOffersAndTheServerGrants() throws Exception {
        Handshake none = Handshake.parse("1.2", "rsa", "rsa2048", "none");
        Handshake ids = Handshake.parse("1.2", "ecdhe-x25519", "rsa2048", "session-id");
        assertFalse(none.generatorResumes(true));
        assertTrue(ids.generatorResumes(false));
        assertEquals("bc", ids.generatorEngine(), "bc's client resumes by session ID and offers no ticket");
        assertTrue(Handshake.DEFAULT.generatorResumes(true) && !Handshake.DEFAULT.generatorResumes(false),
                "without --resumption the scenario's left leg decides");
        assertEquals("TLS 1.2, ecdhe-x25519, resumption session-id", ids.describe());
        Scenario s = ScenarioFiles.load("outbound");
        InetSocketAddress uas = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5090);
        assertEquals("on", after(Bench.serverArgs(s, "aes", ids, Path.of("d"), CERTS, uas), "--tls-session-reuse"));
        assertFalse(Bench.serverArgs(s, "aes", none, Path.of("d"), CERTS, uas).contains("--tls-session-reuse"));
        IllegalArgumentException tls13 = assertThrows(IllegalArgumentException.class,
                () -> Handshake.parse("1.3", "ecdhe-x25519", "rsa2048", "session-id"));
        assertTrue(tls13.getMessage().contains("TLS 1.3 resumes by PSK only"), tls13.getMessage());
        IllegalArgumentException off = assertThrows(IllegalArgumentException.class,
                () -> ids.check(List.of("aes"), Map.of("tls.sessionReuse", "off")));
        assertTrue(off.getMessage().contains("grants no session to resume"), off.getMessage());
    }

    @Test
    void ticketIsTls12sAndPskTls13sBothOnTheGeneratorsOpensslEngine() {
        Handshake ticket = Handshake.parse("1.2", "ecdhe-x25519", "rsa2048", "ticket");
        Handshake psk = Handshake.parse("1.3", "ecdhe-p256", "ecdsa-p256", "psk");
        for (Handshake h : List.of(ticket, psk)) {
            assertEquals("openssl", h.generatorEngine(), h.describe());
            assertTrue(h.generatorResumes(false) && h.resumesByTicket() && h.asksResumption(), h.describe());
        }
        assertEquals("TLS 1.2, ecdhe-x25519, resumption ticket", ticket.describe());
        assertEquals("TLS 1.3, ecdhe-p256, ecdsa-p256, resumption psk", psk.describe());
        assertFalse(Handshake.parse("1.2", "rsa", "rsa2048", "none").asksResumption());
        assertEquals("bc", Handshake.parse("1.2", "rsa", "rsa2048", "session-id").generatorEngine());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Handshake.parse("1.3", "ecdhe-x25519", "rsa2048",
                "ticket")).getMessage().startsWith("--resumption: ticket with --tls-version 1.3: RFC 5077 tickets are"
                + " TLS 1.2's"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Handshake.parse("1.2", "rsa", "rsa2048",
                "psk")).getMessage().startsWith("--resumption: psk with --tls-version 1.2"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Handshake.parse("1.3", "x25519mlkem768",
                "rsa2048", "psk")).getMessage().contains("BoringSSL, which has no ML-KEM"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Handshake.parse("1.2", "rsa", "rsa2048",
                "tickets")).getMessage().equals("--resumption: \"tickets\" (expected none, session-id, ticket, psk)"));
        // RSA key exchange resumes by ticket too: the ticket carries the master secret (RFC 5077 §4)
        assertEquals("TLS_RSA_WITH_AES_128_CBC_SHA", Handshake.parse("1.2", "rsa", "rsa2048", "ticket").suite("aes"));
    }

    @Test
    void pskIsRefusedOnTheBcServerEngineAndBothForCiphersBoringSslLacks() {
        Handshake ticket = Handshake.parse("1.2", "ecdhe-x25519", "rsa2048", "ticket");
        Handshake psk = Handshake.parse("1.3", "ecdhe-x25519", "rsa2048", "psk");
        IllegalArgumentException bc = assertThrows(IllegalArgumentException.class,
                () -> psk.check(List.of("aes"), Map.of("tls.engine", "bc")));
        assertTrue(bc.getMessage().startsWith("--resumption psk: the scenario sets tls.engine bc, whose server (Bouncy"
                + " Castle 1.82) issues no TLS 1.3 tickets"), bc.getMessage());
        // the bc server resumes TLS 1.2 tickets
        ticket.check(List.of("aes", "chacha20"), Map.of("tls.engine", "bc"));
        for (Handshake h : List.of(ticket, psk)) {
            h.check(List.of("aes", "chacha20", "tcp"), Map.of("tls.engine", "jsse"));
            h.check(List.of("aes", "chacha20"), Map.of());
        }
        IllegalArgumentException camellia = assertThrows(IllegalArgumentException.class,
                () -> ticket.check(List.of("aes", "camellia"), Map.of("tls.engine", "jsse")));
        assertTrue(camellia.getMessage().startsWith("camellia: no suite") || camellia.getMessage().contains(
                "camellia cannot resume by ticket"), camellia.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Handshake.parse("1.2", "rsa", "rsa2048", "ticket")
                .check(List.of("aes", "seed"), Map.of())).getMessage().contains("seed cannot resume by ticket"));
        // both ends on BoringSSL under TLS 1.3: the server picks TLS_AES_128_GCM_SHA256, so aes alone
        psk.check(List.of("aes"), Map.of("tls.engine", "openssl"));
        IllegalArgumentException chacha = assertThrows(IllegalArgumentException.class,
                () -> psk.check(List.of("aes", "chacha20"), Map.of("tls.engine", "openssl")));
        assertTrue(chacha.getMessage().contains("chacha20 cannot resume by ticket")
                && chacha.getMessage().contains("the server picks TLS_AES_128_GCM_SHA256"), chacha.getMessage());
        ticket.check(List.of("aes", "chacha20"), Map.of("tls.engine", "openssl"));
        IllegalArgumentException off = assertThrows(IllegalArgumentException.class,
                () -> psk.check(List.of("aes"), Map.of("tls.sessionReuse", "off")));
        assertTrue(off.getMessage().contains("grants no session to resume"), off.getMessage());
    }

    @Test
    void anOpensslServerUnderTls13IsGivenBoringSslsSuitesAfterTheComparedOne() throws Exception {
        Scenario base = ScenarioFiles.load("outbound");
        Map<String, String> server = new java.util.TreeMap<>(base.server());
        server.put("tls.engine", "openssl");
        Scenario s = new Scenario(base.name(), base.description(), base.workload(), base.auth(), base.users(),
                base.left(), base.right(), base.load(), base.repeat(), base.generators(), base.ciphers(), server,
                base.serverJvm());
        InetSocketAddress uas = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5090);
        Handshake psk = Handshake.parse("1.3", "ecdhe-x25519", "rsa2048", "psk");
        assertEquals("TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384,TLS_CHACHA20_POLY1305_SHA256",
                after(Bench.serverArgs(s, "aes", psk, Path.of("d"), CERTS, uas), "--tls-ciphers"));
        assertEquals("on", after(Bench.serverArgs(s, "aes", psk, Path.of("d"), CERTS, uas), "--tls-session-reuse"));
        assertEquals("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", after(Bench.serverArgs(s, "aes",
                Handshake.parse("1.2", "ecdhe-x25519", "rsa2048", "ticket"), Path.of("d"), CERTS, uas), "--tls-ciphers"));
        assertEquals("TLS_AES_128_GCM_SHA256", after(Bench.serverArgs(ScenarioFiles.load("outbound"), "aes", psk,
                Path.of("d"), CERTS, uas), "--tls-ciphers"), "one suite on the other engines");
    }

    @Test
    void certificateAndResumptionAreStoredWithTheEnvironment() throws Exception {
        Environment e = new Environment("jvm", "cpu", 2, "os", "host", "0.1.0")
                .withHandshake(Handshake.parse("1.2", "ecdhe-p256", "ecdsa-p256", "session-id"));
        assertEquals("ecdsa-p256", e.certificate());
        assertEquals("session-id", e.resumption());
        assertEquals(e, LabJson.read(LabJson.write(e), Environment.class));
        Environment old = new Environment("jvm", "cpu", 2, "os", "host", "0.1.0");
        assertEquals("rsa2048", old.certificateDescribed());
        assertEquals("as the scenario", old.resumptionDescribed());
    }

    private static String after(List<String> args, String option) {
        int i = args.indexOf(option);
        assertTrue(i >= 0 && i + 1 < args.size(), option + " in " + args);
        return args.get(i + 1);
    }
}
