package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.SipcryptServer;
import org.sipcrypt.server.cli.UsersCommand;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * The registrar workloads (register, refresh, unregister) and the INVITEs the server refuses or
 * redirects (invite-not-found, redirect) against the real server on loopback, with digest
 * authentication on (users provisioned with the server's users command before it starts) and off.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RegistrarWorkloadsIT {

    static final String REALM = "sipcrypt.test";
    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int USERS = 20;
    private static final double RATE = 10;
    private static final Duration DURATION = Duration.ofSeconds(2);
    private static final long OPERATIONS = 20;

    @TempDir
    Path dir;

    /** Provisions user1..userN (passwords pass1..passN) in the H2 database of {@code dir}; returns the users file. */
    static Path provision(Path dir, int count) {
        Path csv = dir.resolve("users.csv");
        assertEquals(0, new CommandLine(new UsersCommand()).execute("--data-dir", dir.resolve("data").toString(),
                "--realm", REALM, "generate", "--count", String.valueOf(count), "--csv", csv.toString()));
        return csv;
    }

    /**
     * Starts the server on UDP and TCP on loopback with its database in {@code dir}; settings as key,
     * value pairs, a comma separating the values of a repeatable key.
     */
    static SipcryptServer server(Path dir, String... settings) throws Exception {
        Map<String, List<String>> s = new LinkedHashMap<>();
        s.put("dataDir", List.of(dir.resolve("data").toString()));
        s.put("stats.interval", List.of("0"));
        s.put("shutdown.grace", List.of("2s"));
        s.put("listen", List.of("udp:127.0.0.1:0", "tcp:127.0.0.1:0"));
        s.put("realm", List.of(REALM));
        // these tests are about the workloads, not overload: a cold server on a busy machine may hold a
        // message on its lane past the default 100 ms queue-delay bound, which would answer it 503
        s.put("overload.maxQueueDelay", List.of("10s"));
        s.put("overload.queueTarget", List.of("0"));
        for (int i = 0; i + 1 < settings.length; i += 2) {
            s.put(settings[i], List.of(settings[i + 1].split(",")));
        }
        return SipcryptServer.start(ConfigLoader.load(null, s));
    }

    /** 2 s of a workload at 10/s from loopback; every run waits for its operations to end. */
    static RunSummary run(SipcryptServer server, Transport t, Workload w, List<Credential> users,
                          InetSocketAddress registerContact, double maxFailedPct) throws Exception {
        UacOptions o = new UacOptions(server.address(t), t, ConnectionPattern.PERSISTENT, null, RATE, DURATION,
                Duration.ZERO, Duration.ofSeconds(5), Duration.ZERO, maxFailedPct, "sip:lab-uas@lab.test", LOOPBACK,
                Duration.ofSeconds(1), w, null, users, registerContact, null, Duration.ZERO);
        List<Interval> samples = new ArrayList<>();
        RunSummary r = new Uac(o).run(samples::add);
        assertEquals(r.completed(), samples.stream().mapToLong(Interval::completed).sum(), "the samples add up");
        return r;
    }

    /** Checks that the 20 operations of {@link #run} were offered and completed, each with its response time. */
    static void assertAllCompleted(RunSummary r) {
        assertEquals(OPERATIONS, r.offered(), r.text());
        assertEquals(0, r.failed(), r.text());
        assertEquals(OPERATIONS, r.completed(), r.text());
        assertEquals(OPERATIONS, r.crtCount(), "one response time per operation: " + r.text());
        assertTrue(r.passed(), r.text());
    }

    @ParameterizedTest(name = "{0} over {1}")
    @CsvSource({"REGISTER, UDP, 1", "REFRESH, UDP, 2", "UNREGISTER, UDP, 2", "REFRESH, TCP, 2"})
    void registrationsAnswerTheirChallengesAndComplete(Workload w, Transport t, int registersPerOperation)
            throws Exception {
        List<Credential> users = CredentialFiles.read(provision(dir, USERS));
        try (SipcryptServer server = server(dir, "auth", "true", "auth.algorithms", "sha-256,md5")) {
            RunSummary r = run(server, t, w, users, null, 1.0);
            assertAllCompleted(r);
            assertEquals(OPERATIONS * registersPerOperation, r.challenges(), "each REGISTER challenged once: "
                    + r.text());
            assertTrue(r.description().startsWith(w.configName() + ": "), r.description());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Workload.class, names = {"REGISTER", "REFRESH", "UNREGISTER"})
    void registrationsCompleteWithoutAuthentication(Workload w) throws Exception {
        try (SipcryptServer server = server(dir)) {
            RunSummary r = run(server, Transport.UDP, w, List.of(), null, 1.0);
            assertAllCompleted(r);
            assertEquals(0, r.challenges(), r.text());
        }
    }

    @Test
    void invitesToAnUnknownUserCompleteWithTheir404() throws Exception {
        List<Credential> users = CredentialFiles.read(provision(dir, USERS));
        try (SipcryptServer server = server(dir, "auth", "true")) {
            RunSummary r = run(server, Transport.UDP, Workload.INVITE_NOT_FOUND, users, null, 1.0);
            assertAllCompleted(r);
            assertEquals(OPERATIONS, r.challenges(), "each INVITE challenged once (407): " + r.text());
        }
        try (SipcryptServer server = server(dir.resolve("open"))) {
            RunSummary r = run(server, Transport.TCP, Workload.INVITE_NOT_FOUND, List.of(), null, 1.0);
            assertAllCompleted(r);
            assertEquals(0, r.challenges(), r.text());
        }
    }

    @Test
    void invitesToRegisteredUsersOfARedirectServerCompleteWithTheir302() throws Exception {
        List<Credential> users = CredentialFiles.read(provision(dir, USERS));
        try (Uas uas = new Uas();
             SipcryptServer server = server(dir, "mode", "redirect", "auth", "true")) {
            InetSocketAddress uasAt = uas.listen(Transport.UDP, new InetSocketAddress(LOOPBACK, 0), null);
            // 20 registrations at 10/s: every user registered once, its Contact at the UAS
            assertAllCompleted(run(server, Transport.UDP, Workload.REGISTER, users, uasAt, 1.0));
            RunSummary r = run(server, Transport.UDP, Workload.REDIRECT, users, null, 1.0);
            assertAllCompleted(r);
            assertEquals(OPERATIONS, r.challenges(), r.text());
            assertEquals(0, uas.requests("INVITE"), "the generator does not follow the redirection");
        }
    }

    @Test
    void aWrongPasswordFailsEveryRegistrationAsForbidden() throws Exception {
        provision(dir, USERS);
        Path wrong = dir.resolve("wrong.csv");
        Files.writeString(wrong, "SEQUENTIAL\nuser1;not-pass1\nuser2;not-pass2\n", StandardCharsets.UTF_8);
        try (SipcryptServer server = server(dir, "auth", "true")) {
            RunSummary r = run(server, Transport.UDP, Workload.REGISTER, CredentialFiles.read(wrong), null, 100.0);
            assertEquals(OPERATIONS, r.offered(), r.text());
            assertEquals(0, r.completed(), r.text());
            assertEquals(OPERATIONS, r.failed(), r.text());
            assertEquals(Set.of("status_403"), r.causes().keySet(), r.text());
            assertEquals(OPERATIONS, r.challenges(), "each answered once, then refused: " + r.text());
            assertFalse(r.failedPct() < 100, r.text());
        }
    }
}
