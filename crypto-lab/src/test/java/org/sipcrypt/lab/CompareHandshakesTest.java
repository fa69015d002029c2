package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.runner.HandshakeMatrix;
import org.sipcrypt.lab.runner.ScenarioRunner;
import org.sipcrypt.lab.runner.ServerUnderTest;
import org.sipcrypt.lab.scenario.ScenarioFiles;
import picocli.CommandLine;

/**
 * {@code compare --handshakes} and the {@code handshakes} preset's list: one study per combination
 * (servers outermost), each with the ciphers it can run, the others skipped with a line saying why,
 * and everything checked before anything starts.
 * Threading: JUnit's test thread only.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CompareHandshakesTest {

    @TempDir
    Path dir;

    private final List<String> progress = new ArrayList<>();

    private List<CompareCommand.RunOptions.Run> plan(List<String> scenarios, List<String> ciphers, String... args)
            throws IOException {
        CompareCommand c = new CompareCommand();
        new CommandLine(c).parseArgs(args);
        List<ServerUnderTest> suts = c.run.sut.stream().map(ServerUnderTest::parse).toList();
        ScenarioRunner.Options base = new ScenarioRunner.Options(dir, null, progress::add, Duration.ofSeconds(1));
        List<org.sipcrypt.lab.scenario.Scenario> list = new ArrayList<>();
        for (String s : scenarios) {
            list.add(ScenarioFiles.load(s));
        }
        return c.run.plan(list, ciphers, suts, base);
    }

    private static List<String> texts(List<CompareCommand.RunOptions.Run> runs) {
        return runs.stream().map(r -> r.scenario().name() + " " + r.options().sut().configName() + " "
                + HandshakeMatrix.text(r.options().handshake()) + " " + String.join(",", r.ciphers())).toList();
    }

    @Test
    void aStudyPerCombinationEachWithTheCiphersItCanRun() throws IOException {
        List<CompareCommand.RunOptions.Run> runs = plan(List.of("outbound"), List.of("tcp", "aes", "chacha20", "seed"),
                "--handshakes", "1.2/rsa,1.2/ecdhe-x25519,1.3/ecdhe-p256/ecdsa-p256");
        assertEquals(List.of("outbound sipcrypt 1.2/rsa tcp,aes,seed", "outbound sipcrypt 1.2/ecdhe-x25519 tcp,aes,chacha20",
                "outbound sipcrypt 1.3/ecdhe-p256/ecdsa-p256 tcp,aes,chacha20"), texts(runs));
        assertEquals(List.of("outbound 1.2/rsa: skipped chacha20: no suite for TLS 1.2, rsa (a TLS_RSA_WITH_ suite)",
                "outbound 1.2/ecdhe-x25519: skipped seed: no suite for TLS 1.2, ecdhe-x25519 (a TLS_ECDHE_RSA_WITH_ suite"
                        + " for rsa2048 certificates)",
                "outbound 1.3/ecdhe-p256/ecdsa-p256: skipped seed: no suite for TLS 1.3, ecdhe-p256, ecdsa-p256 (a TLS 1.3"
                        + " suite)"), progress);
    }

    @Test
    void theHandshakesPresetRunsItsOwnListUnlessTheOptionsSayOtherwise() throws IOException {
        List<CompareCommand.RunOptions.Run> runs = plan(List.of("handshakes"), null);
        assertEquals(5, runs.size(), texts(runs).toString());
        assertEquals("handshakes sipcrypt 1.2/rsa tcp,aes", texts(runs).get(0));
        assertEquals("handshakes sipcrypt 1.3/x25519mlkem768 tcp,aes", texts(runs).get(4));
        // chacha20 by --ciphers: skipped under TLS 1.2 with RSA key exchange only
        assertEquals("handshakes sipcrypt 1.2/rsa tcp,aes", texts(plan(List.of("handshakes"),
                List.of("tcp", "aes", "chacha20"))).get(0));
        // the main command (the lab profile's default): chain's seven under its one handshake, then the list
        List<String> main = texts(plan(List.of("chain", "handshakes"), null));
        assertEquals(6, main.size(), main.toString());
        assertEquals("chain sipcrypt 1.2/rsa udp,tcp,aes,3des,camellia,seed,rc4", main.get(0));
        assertEquals("handshakes sipcrypt 1.2/ecdhe-x25519 tcp,aes", main.get(2));
        assertEquals(List.of("handshakes sipcrypt 1.3/ecdhe-x25519 tcp,aes"),
                texts(plan(List.of("handshakes"), List.of("tcp", "aes"), "--handshakes", "1.3/ecdhe-x25519")));
        // a single option runs that one handshake, as on any scenario
        assertEquals(List.of("handshakes sipcrypt 1.3/ecdhe-x25519 tcp,aes"),
                texts(plan(List.of("handshakes"), List.of("tcp", "aes"), "--tls-version", "1.3", "--kx", "ecdhe-x25519")));
        // other scenarios have no list: the single options' handshake, refused as before when a cipher cannot run
        assertEquals(List.of("outbound sipcrypt 1.2/rsa aes"), texts(plan(List.of("outbound"), List.of("aes"))));
        assertThrows(IllegalArgumentException.class, () -> plan(List.of("outbound"), List.of("aes", "chacha20")));
    }

    @Test
    void kamailioSkipsTheHybridWhichSipcryptRuns() throws IOException {
        List<CompareCommand.RunOptions.Run> runs = plan(List.of("outbound"), List.of("tcp", "aes"),
                "--sut", "sipcrypt,kamailio", "--handshakes", "1.3/ecdhe-x25519,1.3/x25519mlkem768");
        assertEquals(List.of("outbound sipcrypt 1.3/ecdhe-x25519 tcp,aes", "outbound sipcrypt 1.3/x25519mlkem768 tcp,aes",
                "outbound kamailio 1.3/ecdhe-x25519 tcp,aes"), texts(runs));
        assertTrue(progress.stream().anyMatch(l -> l.startsWith("outbound 1.3/x25519mlkem768 on kamailio: skipped: ")),
                progress.toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> plan(List.of("outbound"),
                List.of("tcp", "aes"), "--sut", "kamailio", "--handshakes", "1.3/x25519mlkem768"));
        assertTrue(e.getMessage().startsWith("--handshakes: 1.3/x25519mlkem768 runs on none of --sut: kamailio: "),
                e.getMessage());
    }

    private int run(StringWriter out, String... args) {
        CommandLine cl = LabMain.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(out));
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--out", dir.resolve("out").toString(), "--db", "jdbc:h2:" + dir.resolve("db"), "--pin", "off"));
        return cl.execute(all.toArray(String[]::new));
    }

    @Test
    void compareRefusesBeforeStartingWhatTheCombinationsCannotRun() {
        StringWriter out = new StringWriter();
        assertEquals(2, run(out, "compare", "--scenario", "outbound", "--ciphers", "tcp,aes", "--handshakes",
                "1.3/ecdhe-x25519", "--kx", "rsa"));
        assertTrue(out.toString().contains("--handshakes: not with --tls-version, --kx, --cert or --resumption"),
                out.toString());
        out = new StringWriter();
        assertEquals(2, run(out, "compare", "--scenario", "outbound", "--ciphers", "tcp,3des", "--handshakes",
                "1.2/rsa,1.3/ecdhe-x25519"));
        assertTrue(out.toString().contains("--handshakes: 1.3/ecdhe-x25519 on outbound runs none of --ciphers tcp,3des:"
                + " 3des: no suite"), out.toString());
        out = new StringWriter();
        assertEquals(2, run(out, "compare", "--scenario", "outbound", "--ciphers", "aes", "--handshakes", "1.3/rsa"));
        assertTrue(out.toString().contains("--handshakes: \"1.3/rsa\": --kx: rsa with --tls-version 1.3"), out.toString());
    }

    @Test
    void aBadListInAScenarioFileIsRefusedNamingTheScenario() throws IOException {
        Path file = dir.resolve("mine.yaml");
        java.nio.file.Files.writeString(file, "name: mine\nleft: {connection: per-call}\nhandshakes: [1.2/rsa, 1.4/rsa]\n");
        StringWriter out = new StringWriter();
        assertEquals(2, run(out, "compare", "--scenario", file.toString(), "--ciphers", "aes"));
        assertTrue(out.toString().contains("mine: handshakes: --handshakes: \"1.4/rsa\": --tls-version"), out.toString());
    }

    @Test
    void anEmptyCipherListIsTheScenarios() {
        // as the lab profile of crypto-lab/pom.xml passes it without -Dciphers: the scenario's list, which
        // TLS 1.3 then refuses naming its ciphers
        StringWriter out = new StringWriter();
        assertEquals(2, run(out, "compare", "--scenario", "outbound", "--ciphers=", "--tls-version", "1.3", "--kx",
                "ecdhe-x25519"));
        assertTrue(out.toString().contains("3des, camellia, seed, rc4: no suite for TLS 1.3, ecdhe-x25519 (a TLS 1.3"
                + " suite); these can run: --ciphers udp,tcp,aes"), out.toString());
    }
}
