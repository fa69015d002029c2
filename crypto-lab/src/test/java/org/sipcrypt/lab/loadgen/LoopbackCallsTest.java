package org.sipcrypt.lab.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * The UAC against the UAS on loopback, no server between them: every transport and connection
 * pattern, TLS on both generator engines, session reuse on and off, a silent target, and a callee on
 * a plain socket that sees how the generator's writes leave.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoopbackCallsTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final double RATE = 20;
    private static final Duration DURATION = Duration.ofSeconds(2);

    @TempDir
    Path dir;

    @BeforeEach
    void certificates() {
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", dir.toString()));
    }

    private TlsOptions uasTls(String ciphers, boolean reuse) {
        return new TlsOptions(List.of(ciphers), "bc", List.of(), List.of("1.2"), dir.resolve("ca.pem"),
                dir.resolve("server.pem"), dir.resolve("server-key.pem"), reuse, BcTlsSetup.ClientCertificates.NONE, true);
    }

    private TlsOptions uacTls(String ciphers, String engine, boolean reuse) {
        return TlsOptions.of(List.of(ciphers), dir.resolve("ca.pem")).withEngine(engine).withSessionReuse(reuse);
    }

    private static RunSummary call(Transport t, ConnectionPattern pattern, TlsOptions tls, InetSocketAddress uas,
                                   List<Interval> samples, Duration timeout) throws Exception {
        String uri = "sip:lab-uas@127.0.0.1:" + uas.getPort() + ";transport=" + t.configName();
        UacOptions o = new UacOptions(uas, t, pattern, tls, RATE, DURATION, Duration.ZERO, timeout, Duration.ZERO, 1.0,
                uri, LOOPBACK, Duration.ofMillis(500));
        return new Uac(o).run(samples::add);
    }

    private RunSummary callUas(Transport t, ConnectionPattern pattern, TlsOptions uasTls, TlsOptions uacTls)
            throws Exception {
        try (Uas uas = new Uas()) {
            InetSocketAddress at = uas.listen(t, new InetSocketAddress(LOOPBACK, 0), uasTls);
            List<Interval> samples = new ArrayList<>();
            RunSummary s = call(t, pattern, uacTls, at, samples, Duration.ofSeconds(5));
            assertAllCallsCompleted(s, samples);
            assertEquals(s.completed(), uas.requests("BYE"), "the UAS answered each BYE once");
            return s;
        }
    }

    private static void assertAllCallsCompleted(RunSummary s, List<Interval> samples) {
        long expected = Math.round(RATE * DURATION.toSeconds());
        assertEquals(expected, s.offered(), s.text());
        assertEquals(0, s.failed(), s.text());
        assertEquals(expected, s.completed(), s.text());
        assertEquals(expected, s.crtCount(), "one response time per call");
        long inBuckets = 0;
        for (long b : s.buckets()) {
            inBuckets += b;
        }
        assertEquals(s.crtCount(), inBuckets, "every response time in one bucket");
        assertTrue(s.crtP50Ms() > 0 && s.crtP50Ms() <= s.crtP99Ms() && s.crtP99Ms() <= s.crtMaxMs(), s.text());
        assertTrue(s.bytesSent() > 0 && s.bytesReceived() > 0, s.text());
        assertTrue(s.passed(), s.text());
        assertFalse(samples.isEmpty());
        assertEquals(s.completed(), samples.stream().mapToLong(Interval::completed).sum(), "the samples add up");
    }

    @Test
    void callsOverUdpComplete() throws Exception {
        RunSummary s = callUas(Transport.UDP, ConnectionPattern.PERSISTENT, null, null);
        assertEquals(0, s.handshakes());
    }

    @Test
    void callsOverOnePersistentTcpConnectionComplete() throws Exception {
        callUas(Transport.TCP, ConnectionPattern.PERSISTENT, null, null);
    }

    @Test
    void callsOverTcpConnectionsPerCallComplete() throws Exception {
        callUas(Transport.TCP, ConnectionPattern.PER_CALL, null, null);
    }

    @Test
    void callsOverOnePersistentTlsConnectionWithAesComplete() throws Exception {
        RunSummary s = callUas(Transport.TLS, ConnectionPattern.PERSISTENT, uasTls("aes", true),
                uacTls("aes", "jsse", true));
        assertEquals(1, s.handshakes(), "one connection, one handshake");
    }

    @ParameterizedTest(name = "on {0}, session reuse {1}")
    @CsvSource({"bc, true", "jsse, true", "bc, false", "jsse, false"})
    void perCallTlsConnectionsResumeTheSessionExactlyWhenReuseIsOn(String engine, boolean reuse) throws Exception {
        RunSummary s = callUas(Transport.TLS, ConnectionPattern.PER_CALL, uasTls("aes", true).withEngine(engine),
                uacTls("aes", engine, reuse));
        assertEquals(s.completed(), s.handshakes(), "a handshake per call");
        if (reuse) {
            assertTrue(s.resumed() > 0, s.text());
        } else {
            assertEquals(0, s.resumed(), "reuse off: every handshake full: " + s.text());
        }
    }

    @ParameterizedTest(name = "reuse {0}")
    @ValueSource(booleans = {true, false})
    void jsseRefusesAServerWhoseCertificateDoesNotNameTheDialledAddress(boolean reuse) throws Exception {
        Path other = dir.resolve("other");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", other.toString(), "--san", "sip.example.invalid"));
        TlsOptions uas = new TlsOptions(List.of("aes"), "jsse", List.of(), List.of("1.2"), other.resolve("ca.pem"),
                other.resolve("server.pem"), other.resolve("server-key.pem"), true, BcTlsSetup.ClientCertificates.NONE,
                false);
        TlsOptions uac = TlsOptions.of(List.of("aes"), other.resolve("ca.pem")).withEngine("jsse").withSessionReuse(reuse);
        try (Uas u = new Uas()) {
            InetSocketAddress at = u.listen(Transport.TLS, new InetSocketAddress(LOOPBACK, 0), uas);
            RunSummary s = call(Transport.TLS, ConnectionPattern.PER_CALL, uac, at, new ArrayList<>(), Duration.ofSeconds(5));
            assertEquals(0, s.completed(), s.text());
            assertTrue(s.causes().getOrDefault("connect", 0L) > 0, s.text());
            // the run stops early on failures: calls still connecting then end as timeouts or stopped
            assertTrue(Set.of("connect", "timeout", "stopped").containsAll(s.causes().keySet()), s.text());
            assertEquals(0, s.handshakes(), s.text());
            assertEquals(0, u.requests("INVITE"), "no INVITE went to a server of another name");
        }
    }

    @Test
    void callsOverTlsWithSeedOnTheBcEngineComplete() throws Exception {
        RunSummary s = callUas(Transport.TLS, ConnectionPattern.PERSISTENT, uasTls("seed", true),
                uacTls("seed", "bc", true));
        assertTrue(s.description().contains("bc seed"), s.description());
    }

    @Test
    void registrationsToASilentPortAreRetransmittedByTimerEAndFailAsTimeouts() throws Exception {
        try (java.net.DatagramSocket silent = new java.net.DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
            InetSocketAddress at = (InetSocketAddress) silent.getLocalSocketAddress();
            UacOptions o = new UacOptions(at, Transport.UDP, ConnectionPattern.PERSISTENT, null, RATE, DURATION,
                    Duration.ZERO, Duration.ofMillis(1200), Duration.ZERO, 1.0, "sip:unused@127.0.0.1", LOOPBACK,
                    Duration.ofMillis(500)).withWorkload(Workload.REGISTER).withDomain("lab.test");
            RunSummary s = new Uac(o).run(i -> { });
            assertFalse(s.passed(), s.text());
            assertEquals(0, s.completed());
            assertEquals(s.failed(), s.causes().get("timeout"), s.text());
            assertTrue(s.retransmissions() > 0, "Timer E retransmitted the REGISTERs: " + s.text());
            silent.setSoTimeout(1000);
            java.net.DatagramPacket p = new java.net.DatagramPacket(new byte[65535], 65535);
            silent.receive(p);
            SipMessage first = SipMessage.parse(p.getData(), 0, p.getLength());
            assertEquals("REGISTER sip:lab.test SIP/2.0", first.startLine());
            assertEquals("<sip:lab-uac-0@lab.test>", first.header("To"));
            assertEquals("3600", first.header("Expires"));
            assertEquals(1, first.cseqNumber());
            SipMessage again;
            do {
                silent.receive(p);
                again = SipMessage.parse(p.getData(), 0, p.getLength());
            } while (!again.callId().equals(first.callId()));
            assertEquals(first.headers("Via"), again.headers("Via"), "a retransmission keeps the branch");
            assertEquals(1, again.cseqNumber());
        }
    }

    @Test
    void aRunStoppedEarlyLetsTheCallsUnderWayEndWithTheirBye() throws Exception {
        // a callee taking 5 INVITEs/s against 40 calls/s: the run stops on its failures in its first
        // second, while the calls the callee took are held for a second; they still end with a BYE,
        // so the callee is not left retransmitting 200s and holding calls nobody will end
        try (Uas uas = new Uas()) {
            InetSocketAddress at = uas.listen(Transport.UDP, new InetSocketAddress(LOOPBACK, 0), null);
            uas.limitInvites(5);
            String uri = "sip:lab-uas@127.0.0.1:" + at.getPort() + ";transport=udp";
            UacOptions o = new UacOptions(at, Transport.UDP, ConnectionPattern.PERSISTENT, null, 40,
                    Duration.ofSeconds(5), Duration.ZERO, Duration.ofSeconds(3), Duration.ofSeconds(1), 1.0, uri,
                    LOOPBACK, Duration.ofMillis(500));
            RunSummary s = new Uac(o).run(i -> { });
            assertFalse(s.passed(), s.text());
            assertTrue(s.offered() < 40 * 5, "stopped early: " + s.text());
            long taken = uas.requests("INVITE") - uas.invitesRefused();
            assertTrue(taken > 0, s.text());
            assertEquals(taken, uas.requests("BYE"), "every call the callee took ended with its BYE: " + s.text());
            assertEquals(taken, s.completed(), s.text());
        }
    }

    @Test
    void callsToASilentPortFailAsTimeoutsAndStopTheRun() throws Exception {
        try (java.net.DatagramSocket silent = new java.net.DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
            List<Interval> samples = new ArrayList<>();
            RunSummary s = call(Transport.UDP, ConnectionPattern.PERSISTENT, null,
                    (InetSocketAddress) silent.getLocalSocketAddress(), samples, Duration.ofMillis(600));
            assertFalse(s.passed(), s.text());
            assertEquals(0, s.completed());
            // a call handed to a worker just as the run stopped early was never sent: "stopped"
            assertEquals(s.failed(), s.causes().get("timeout") + s.causes().getOrDefault("stopped", 0L), s.text());
            assertTrue(s.failed() <= s.offered() && s.failedPct() <= 100.0, s.text());
            assertTrue(s.retransmissions() > 0, "Timer A retransmitted the INVITEs: " + s.text());
        }
    }

    /**
     * A persistent connection the callee closes mid-run is opened again for the next call: the
     * schedule, kept on the connection's event loop, hands the calls that find it closed to a worker
     * (which may wait for the connect) and goes on; only a call under way when it closed may fail.
     */
    @Test
    void aPersistentConnectionClosedMidRunIsOpenedAgainForTheNextCalls() throws Exception {
        try (Uas uas = new Uas()) {
            InetSocketAddress at = uas.listen(Transport.TCP, new InetSocketAddress(LOOPBACK, 0), null);
            String uri = "sip:lab-uas@127.0.0.1:" + at.getPort() + ";transport=tcp";
            UacOptions o = new UacOptions(at, Transport.TCP, ConnectionPattern.PERSISTENT, null, RATE,
                    Duration.ofSeconds(3), Duration.ZERO, Duration.ofSeconds(5), Duration.ZERO, 10.0, uri, LOOPBACK,
                    Duration.ofMillis(500));
            List<Interval> samples = new ArrayList<>();
            RunSummary s = new Uac(o).run(i -> {
                samples.add(i);
                if (samples.size() == 1) {
                    uas.dropConnections();
                }
            });
            long expected = Math.round(RATE * 3);
            assertEquals(expected, s.offered(), s.text());
            // a call offered while the close was on its way fails with it (calls are 50 ms apart)
            assertTrue(s.failed() <= 2, "at most the calls under way at the close failed: " + s.text());
            assertEquals(s.failed(), s.causes().getOrDefault("transport", 0L), s.text());
            // the calls after the close completed: on a connection opened again
            assertEquals(expected - s.failed(), s.completed(), s.text());
        }
    }

    /**
     * A persistent connection the server refuses at the start fails the run's calls as {@code connect},
     * each call trying to connect again, rather than ending the run (and a comparison) with an error.
     */
    @Test
    void aPersistentConnectionRefusedAtTheStartFailsTheCallsAsConnect() throws Exception {
        InetSocketAddress refused;
        try (java.net.ServerSocket closed = new java.net.ServerSocket(0, 1, LOOPBACK)) {
            refused = (InetSocketAddress) closed.getLocalSocketAddress();
        }
        RunSummary s = call(Transport.TCP, ConnectionPattern.PERSISTENT, null, refused, new ArrayList<>(),
                Duration.ofMillis(600));
        assertFalse(s.passed(), s.text());
        assertEquals(0, s.completed());
        assertTrue(s.causes().getOrDefault("connect", 0L) > 0, s.text());
        assertTrue(s.stoppedEarly() != null, "stopped early on its failures: " + s.text());
    }

    /**
     * The ACK and the BYE that a 200 sets off (no hold) leave in one socket write: a callee on a plain
     * socket answers each INVITE with a 200 and keeps what each of its reads returned. Bytes of one
     * write arrive together on loopback, so the read that returns a call's ACK returns its BYE too;
     * written apart, the ACK mostly comes alone.
     */
    @Test
    void theAckAndTheByeThatAnOkSetsOffLeaveInOneSocketWrite() throws Exception {
        try (ServerSocket callee = new ServerSocket(0, 1, LOOPBACK)) {
            List<List<SipMessage>> reads = Collections.synchronizedList(new ArrayList<>());
            List<Exception> errors = Collections.synchronizedList(new ArrayList<>());
            Thread answering = new Thread(() -> answerCalls(callee, reads, errors), "test-callee");
            answering.setDaemon(true);
            answering.start();
            RunSummary s = call(Transport.TCP, ConnectionPattern.PERSISTENT, null,
                    (InetSocketAddress) callee.getLocalSocketAddress(), new ArrayList<>(), Duration.ofSeconds(5));
            assertEquals(Math.round(RATE * DURATION.toSeconds()), s.completed(), s.text());
            // the run closed its connection: the callee reads to its end
            answering.join(5000);
            assertEquals(List.of(), errors);
            int acks = 0;
            synchronized (reads) {
                for (List<SipMessage> read : reads) {
                    for (SipMessage m : read) {
                        if (m.method().equals("ACK")) {
                            acks++;
                            assertTrue(read.stream().anyMatch(b -> b.method().equals("BYE")
                                    && b.callId().equals(m.callId())), "the ACK of " + m.callId() + " came alone");
                        }
                    }
                }
            }
            assertEquals(s.completed(), acks, "an ACK per call");
        }
    }

    /**
     * Answers INVITE and BYE with a 200 on the one connection it accepts, until the connection ends;
     * adds each read's requests to {@code reads} and what failed to {@code errors}.
     */
    private static void answerCalls(ServerSocket callee, List<List<SipMessage>> reads, List<Exception> errors) {
        try (Socket s = callee.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            StreamFramer framer = new StreamFramer(65535);
            byte[] buf = new byte[65536];
            int n;
            while ((n = in.read(buf)) > 0) {
                List<SipMessage> read = framer.feed(buf, 0, n);
                reads.add(read);
                for (SipMessage m : read) {
                    if (m.method().equals("INVITE") || m.method().equals("BYE")) {
                        String ok = "SIP/2.0 200 OK\r\nVia: " + m.header("Via") + "\r\nFrom: " + m.header("From")
                                + "\r\nTo: " + m.header("To") + (m.method().equals("INVITE") ? ";tag=callee" : "")
                                + "\r\nCall-ID: " + m.callId() + "\r\nCSeq: " + m.header("CSeq")
                                + "\r\nContact: <sip:callee@127.0.0.1:" + callee.getLocalPort()
                                + ";transport=tcp>\r\nContent-Length: 0\r\n\r\n";
                        out.write(ok.getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            errors.add(e);
        }
    }
}
