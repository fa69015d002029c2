package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.parser.StringMsgParser;
import io.micrometer.core.instrument.Counter;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.DigestClient;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * The relays under a fuzz, through the real server with authentication on: a call is set up over
 * real UDP sockets (alice on 127.0.0.1 calls a callee on 127.0.0.2, credentials answered), and its
 * genuine in-dialog messages become the seeds: the caller's ACK and BYE and the callee's BYE, each
 * carrying back the dialog's signed route, and the callee's 180 and 200 carrying the proxy's genuine
 * branch. {@link RelayFuzzer} mutates them; each mutant that names only loopback addresses is sent
 * from the socket its seed came from, with a bystander listening on 127.0.0.3. Checked:
 * <ul>
 *   <li>nothing unsigned is relayed: every request reaching the callee, the caller or the bystander
 *       carries the dialog's Call-ID and tags however it is read (every Call-ID line, every tag of
 *       every From and To line, and JAIN-SIP's parse), since only that dialog has a signed route
 *       and no mutant carries credentials;</li>
 *   <li>no response reaches the bystander (a response goes back only where its request came from);</li>
 *   <li>the server counts no exception ({@code sip.datagrams.dropped{reason=stack_error}} stays 0)
 *       and answers a plain OPTIONS afterwards.</li>
 * </ul>
 * {@code -Dfuzz.relay.inputs} (default 4,000) and {@code -Dfuzz.relay.seed} change the run; a long
 * run is this class alone with a large count.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class RelayFuzzIT {

    private static final long INPUTS = Long.getLong("fuzz.relay.inputs", 4_000);
    private static final long SEED = Long.getLong("fuzz.relay.seed", 45);
    /** Mutants sent per second: well below what the proxy takes, so overload does not hide the relays. */
    private static final int RATE = Integer.getInteger("fuzz.relay.rate", 1_500);
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Mutants per call: a relayed BYE ends its call, so the fuzz sets up a new one this often. */
    private static final int PER_CALL = 100;

    @TempDir
    Path dir;

    @Test
    @SuppressWarnings("try")
    void mutatedInDialogMessagesAreRelayedOnlyForTheDialogTheyProve() throws Exception {
        try (TestServer server = TestServer.start(dir, "auth", "true", "auth.algorithms", "md5");
             Peer caller = new Peer("127.0.0.1");
             Peer callee = new Peer("127.0.0.2");
             Peer bystander = new Peer("127.0.0.3")) {
            DigestRegistrarIT.provision(server, server.config().effectiveRealm());
            InetSocketAddress proxy = server.address(Transport.UDP);
            String proxyHostPort = "127.0.0.1:" + proxy.getPort();
            List<String> addresses = List.of(proxyHostPort, callee.hostPort(), caller.hostPort(),
                    bystander.hostPort());
            Counter stackErrors = server.server().registry().counter("sip.datagrams.dropped", "reason", "stack_error");
            double errorsBefore = stackErrors.count();
            Map<String, Long> outcomes = new TreeMap<>();
            List<String> violations = new ArrayList<>();
            long gap = 1_000_000_000L / RATE;
            long started = System.nanoTime();
            List<Peer> senders = List.of(caller, caller, callee, callee, callee);
            Seeds seeds = null;
            RelayFuzzer fuzzer = null;
            long next = 0;
            long callNanos = 0;
            for (long i = 0; i < INPUTS; i++) {
                if (i % PER_CALL == 0) {
                    check(caller, callee, bystander, outcomes, violations);
                    Seeds previous = seeds;
                    long setUp = System.nanoTime();
                    seeds = call(proxy, caller, callee, bystander, i / PER_CALL);
                    callNanos += System.nanoTime() - setUp;
                    // tokens from this call and the one before, so mutants mix two dialogs' identities
                    List<String> values = new ArrayList<>(List.of(seeds.callId(), seeds.callerTag(), seeds.calleeTag(),
                            "other", "fake", "a", ""));
                    if (previous != null) {
                        values.addAll(List.of(previous.callId(), previous.callerTag(), previous.calleeTag()));
                    }
                    fuzzer = new RelayFuzzer(List.of("127.0.0.1", "127.0.0.2", "127.0.0.3"), values);
                    next = System.nanoTime();
                }
                int s = (int) (i % seeds.all().size());
                String mutant = fuzzer.mutate(seeds.all().get(s), SEED * 8 + s, i, addresses);
                if (!fuzzer.safe(mutant)) {
                    outcomes.merge("skipped_unsafe", 1L, Long::sum);
                    continue;
                }
                outcomes.merge("sent", 1L, Long::sum);
                senders.get(s).send(mutant, proxy);
                next += gap;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
            // a plain request answered: the server is up and has handled what came before it on its lanes
            try (SipSocket probe = server.socket(Transport.UDP)) {
                probe.exchange(probe.request("OPTIONS", "sip:" + proxyHostPort, "probe", proxyHostPort,
                        "fuzz-after", 1, ""), "SIP/2.0 200", WAIT);
            }
            Thread.sleep(1_000);
            check(caller, callee, bystander, outcomes, violations);
            System.gc();
            Runtime rt = Runtime.getRuntime();
            System.out.printf("relay fuzz: seed %d, %d inputs: %s in %.1f s (%.1f s of it setting up calls); heap in use after a collection %d MB,"
                            + " server transactions live %d, dialogs %s%n", SEED, INPUTS, outcomes,
                    (System.nanoTime() - started) / 1e9, callNanos / 1e9, (rt.totalMemory() - rt.freeMemory()) >> 20,
                    server.server().liveServerTransactions(),
                    server.server().registry().find("sip.dialogs.established").gauge().value());
            assertEquals(List.of(), violations, "relayed without proving the dialog: " + outcomes);
            assertEquals(0.0, stackErrors.count() - errorsBefore, "exceptions counted as stack_error: " + outcomes);
            assertTrue(outcomes.getOrDefault("relayed", 0L) > 0, "nothing was relayed at all: " + outcomes);
        }
    }

    /** The dialogs set up so far: Call-ID to its caller's and callee's tags. */
    private static final Map<String, List<String>> DIALOGS = new java.util.concurrent.ConcurrentHashMap<>();

    /** Reads what reached the three peers and checks it, counting and keeping the first violations. */
    private static void check(Peer caller, Peer callee, Peer bystander, Map<String, Long> outcomes,
                              List<String> violations) {
        for (Peer p : List.of(caller, callee, bystander)) {
            String m;
            while ((m = p.received.poll()) != null) {
                String violation = null;
                if (m.startsWith("SIP/2.0")) {
                    outcomes.merge("response_back", 1L, Long::sum);
                    violation = p == bystander ? "a response reached the bystander" : null;
                } else {
                    outcomes.merge("relayed", 1L, Long::sum);
                    violation = identityViolation(m);
                }
                if (violation != null) {
                    outcomes.merge("violations", 1L, Long::sum);
                    if (violations.size() < 5) {
                        violations.add("to " + p.hostPort() + " (" + violation + "):\n" + m);
                    }
                }
            }
        }
    }

    /**
     * What in {@code request} names another dialog than one signed route proves (a Call-ID set up
     * here with its own two tags, however it is read), or null when nothing does.
     */
    static String identityViolation(String request) {
        String head = request.replace("\r\n", "\n");
        int end = head.indexOf("\n\n");
        head = end >= 0 ? head.substring(0, end) : head;
        List<String> callIds = new ArrayList<>();
        List<String> tags = new ArrayList<>();
        for (String line : head.replaceAll("\n[ \t]+", " ").split("\n")) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            // the name as the most lenient reader takes it: blanks and control characters dropped
            String name = line.substring(0, colon).replaceAll("[\\x00-\\x20]", "").toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            if (name.equals("call-id") || name.equals("i")) {
                callIds.add(value);
            }
            if (name.equals("from") || name.equals("f") || name.equals("to") || name.equals("t")) {
                for (String param : value.substring(Math.max(0, value.lastIndexOf('>'))).split(";")) {
                    int eq = param.indexOf('=');
                    if (eq > 0 && param.substring(0, eq).trim().equalsIgnoreCase("tag")) {
                        tags.add(param.substring(eq + 1).trim());
                    }
                }
            }
        }
        if (callIds.isEmpty()) {
            return "no Call-ID";
        }
        List<String> pair = DIALOGS.get(callIds.get(0));
        if (pair == null || callIds.stream().anyMatch(c -> !c.equals(callIds.get(0)))) {
            return "Call-ID " + callIds;
        }
        if (tags.stream().anyMatch(t -> !pair.contains(t))) {
            return "tags " + tags;
        }
        try {
            SIPMessage parsed = new StringMsgParser().parseSIPMessage(request.getBytes(StandardCharsets.UTF_8), true,
                    false, null);
            if (parsed instanceof SIPRequest r) {
                String from = r.getFromTag();
                String to = r.getToTag();
                boolean both = from != null && to != null && !from.equals(to) && pair.contains(from)
                        && pair.contains(to);
                if (!callIds.get(0).equals(r.getCallId().getCallId()) || !both) {
                    return "parsed as " + r.getCallId().getCallId() + " " + from + "/" + to;
                }
            }
        } catch (java.text.ParseException | RuntimeException e) {
            // a callee's parser refuses it: it acts on nothing
        }
        return null;
    }

    /** The genuine messages of one call, in the order the fuzz cycles through them. */
    private record Seeds(String callId, String callerTag, String calleeTag, String ack, String callerBye,
                         String calleeBye, String ringing, String ok) {
        List<String> all() {
            return List.of(ack, callerBye, calleeBye, ringing, ok);
        }
    }

    /**
     * Sets up call {@code n} (407, credentials, 180, 200, the genuine ACK relayed) with the peers'
     * answers off, and returns its in-dialog messages.
     */
    private static Seeds call(InetSocketAddress proxy, Peer caller, Peer callee, Peer bystander, long n)
            throws Exception {
        for (Peer p : List.of(caller, callee, bystander)) {
            p.answering = false;
        }
        String callId = "fuzz-call-" + n;
        String callerTag = "fuzz-caller-" + n;
        String calleeTag = "fuzz-callee-" + n;
        DIALOGS.put(callId, List.of(callerTag, calleeTag));
        String target = "sip:bob@" + callee.hostPort();
        String from = "From: <sip:alice@127.0.0.1>;tag=" + callerTag + "\r\n";
        caller.send(invite(caller, target, callId, from, 1, "z9hG4bK-fz-" + n + "-1", ""), proxy);
        String challenge = caller.await("SIP/2.0 407", callId);
        caller.send("ACK " + target + " SIP/2.0\r\nVia: SIP/2.0/UDP " + caller.hostPort() + ";branch=z9hG4bK-fz-" + n
                + "-1\r\nMax-Forwards: 70\r\n" + from + "To: " + header(challenge, "To") + "\r\nCall-ID: " + callId
                + "\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n", proxy);
        String creds = DigestClient.answer("Proxy-Authorization", Attacker.md5Challenge(challenge, "Proxy-Authenticate"),
                "alice", "secret", "INVITE", target, 1);
        caller.send(invite(caller, target, callId, from, 2, "z9hG4bK-fz-" + n + "-2", creds), proxy);
        String forwarded = callee.await("INVITE ", callId);
        String ringing = response(forwarded, "180 Ringing", callee, calleeTag);
        String ok = response(forwarded, "200 OK", callee, calleeTag);
        callee.send(ringing, proxy);
        callee.send(ok, proxy);
        String answered = caller.await("SIP/2.0 200", callId);
        String route = header(answered, "Record-Route");
        assertTrue(route.contains("sc-dlg="), "the Record-Route is signed: " + route);
        String inDialog = "Max-Forwards: 70\r\n" + from + "To: <" + target + ">;tag=" + calleeTag + "\r\nCall-ID: "
                + callId + "\r\n";
        String ack = "ACK " + target + " SIP/2.0\r\nVia: SIP/2.0/UDP " + caller.hostPort() + ";branch=z9hG4bK-fz-" + n
                + "-3;rport\r\nRoute: " + route + "\r\n" + inDialog + "CSeq: 2 ACK\r\nContent-Length: 0\r\n\r\n";
        String callerBye = "BYE " + target + " SIP/2.0\r\nVia: SIP/2.0/UDP " + caller.hostPort() + ";branch=z9hG4bK-fz-"
                + n + "-4;rport\r\nRoute: " + route + "\r\n" + inDialog + "CSeq: 3 BYE\r\nContent-Length: 0\r\n\r\n";
        String calleeBye = "BYE sip:alice@" + caller.hostPort() + " SIP/2.0\r\nVia: SIP/2.0/UDP " + callee.hostPort()
                + ";branch=z9hG4bK-fz-" + n + "-5;rport\r\nRoute: " + header(forwarded, "Record-Route") + "\r\n"
                + "Max-Forwards: 70\r\nFrom: <" + target + ">;tag=" + calleeTag + "\r\nTo: <sip:alice@127.0.0.1>;tag="
                + callerTag + "\r\nCall-ID: " + callId + "\r\nCSeq: 1 BYE\r\nContent-Length: 0\r\n\r\n";
        // the genuine ACK goes through: the seeds prove their dialog
        caller.send(ack, proxy);
        callee.await("ACK ", callId);
        for (Peer p : List.of(caller, callee, bystander)) {
            p.answering = true;
        }
        return new Seeds(callId, callerTag, calleeTag, ack, callerBye, calleeBye, ringing, ok);
    }

    private static String invite(Peer caller, String target, String callId, String from, int cseq, String branch,
                                 String extra) {
        return "INVITE " + target + " SIP/2.0\r\nVia: SIP/2.0/UDP " + caller.hostPort() + ";branch=" + branch
                + ";rport\r\nMax-Forwards: 70\r\n" + from + "To: <" + target + ">\r\nCall-ID: " + callId
                + "\r\nCSeq: " + cseq + " INVITE\r\nContact: <sip:alice@" + caller.hostPort() + ">\r\n" + extra
                + "Content-Length: 0\r\n\r\n";
    }

    /** The callee's response to the forwarded INVITE: every Via, its Record-Route, its To tag and Contact. */
    private static String response(String request, String status, Peer callee, String calleeTag) {
        StringBuilder sb = new StringBuilder("SIP/2.0 ").append(status).append("\r\n");
        for (String line : request.split("\r\n")) {
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("via:") || lower.startsWith("record-route:") || lower.startsWith("from:")
                    || lower.startsWith("call-id:") || lower.startsWith("cseq:")) {
                sb.append(line).append("\r\n");
            } else if (lower.startsWith("to:")) {
                sb.append(line).append(";tag=").append(calleeTag).append("\r\n");
            }
        }
        return sb.append("Contact: <sip:bob@").append(callee.hostPort()).append(">\r\nContent-Length: 0\r\n\r\n")
                .toString();
    }

    /** The value of the first header line {@code name} (long form) of a message. */
    private static String header(String message, String name) {
        for (String line : message.split("\r\n")) {
            if (line.regionMatches(true, 0, name + ":", 0, name.length() + 1)) {
                return line.substring(name.length() + 1).trim();
            }
        }
        throw new AssertionError("no " + name + " in:\n" + message);
    }

    /**
     * A UDP socket on a loopback address that keeps every message reaching it; once the call is set
     * up it answers each request but ACK (an INVITE with 486, the rest with 200, a To tag added) to
     * the address it came from (the proxy), so that relayed transactions end.
     * Threading: a daemon reader thread fills it; the test thread reads it.
     */
    private static final class Peer implements AutoCloseable {
        final DatagramSocket socket;
        final ConcurrentLinkedQueue<String> received = new ConcurrentLinkedQueue<>();
        /** Whether requests are answered: not while the call is set up, whose answers the test writes. */
        volatile boolean answering;
        private final Thread reader;

        Peer(String address) throws IOException {
            socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(address), 0));
            socket.setReceiveBufferSize(4 << 20);
            reader = new Thread(this::read, "relay-fuzz-peer-" + address);
            reader.setDaemon(true);
            reader.start();
        }

        String hostPort() {
            return socket.getLocalAddress().getHostAddress() + ":" + socket.getLocalPort();
        }

        void send(String message, InetSocketAddress to) throws IOException {
            byte[] b = message.getBytes(StandardCharsets.UTF_8);
            socket.send(new DatagramPacket(b, b.length, to));
        }

        /** The first message received that starts with {@code start} and has {@code callId}, waited for and taken out. */
        String await(String start, String callId) throws InterruptedException {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                for (String m : received) {
                    if (m.startsWith(start) && m.contains("\r\nCall-ID: " + callId + "\r\n") && received.remove(m)) {
                        return m;
                    }
                }
                // a short park: a long run sets up a call every 100 mutants, 100,000 of them
                LockSupport.parkNanos(200_000);
            }
            throw new AssertionError("nothing starting with " + start + " reached " + hostPort() + ": "
                    + new ArrayList<>(received).stream().map(m -> m.substring(0, Math.min(60, m.length()))).toList());
        }

        private void read() {
            byte[] buf = new byte[65_535];
            while (!socket.isClosed()) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                    socket.receive(p);
                } catch (SocketException e) {
                    return;
                } catch (IOException e) {
                    continue;
                }
                String m = new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
                received.add(m);
                if (answering && !m.startsWith("SIP/2.0") && !m.startsWith("ACK ") && p.getAddress().isLoopbackAddress()) {
                    answer(m, new InetSocketAddress(p.getAddress(), p.getPort()));
                }
            }
        }

        /** Whether a To line carries a tag parameter, its name in any case, after the URI. */
        private static boolean hasTag(String line) {
            String params = line.substring(Math.max(0, line.lastIndexOf('>')));
            for (String param : params.split(";")) {
                int eq = param.indexOf('=');
                if (eq > 0 && param.substring(0, eq).trim().equalsIgnoreCase("tag")) {
                    return true;
                }
            }
            return false;
        }

        /** 486 or 200 to the address the request came from (the proxy, a loopback address). */
        private void answer(String request, InetSocketAddress from) {
            StringBuilder sb = new StringBuilder(request.startsWith("INVITE ") ? "SIP/2.0 486 Busy Here\r\n"
                    : "SIP/2.0 200 OK\r\n");
            for (String line : request.replace("\r\n", "\n").split("\n")) {
                String lower = line.toLowerCase(Locale.ROOT);
                if (lower.startsWith("via:") || lower.startsWith("from:") || lower.startsWith("call-id:")
                        || lower.startsWith("cseq:")) {
                    sb.append(line).append("\r\n");
                } else if (lower.startsWith("to:")) {
                    // a To tag in any case counts (a parameter name is case-insensitive): a peer that
                    // missed "TAG=" and added its own would make the proxy's ACK for its answer
                    // carry a tag of no dialog here
                    sb.append(line).append(hasTag(line) ? "" : ";tag=peer").append("\r\n");
                }
                if (line.isEmpty()) {
                    break;
                }
            }
            byte[] b = sb.append("Content-Length: 0\r\n\r\n").toString().getBytes(StandardCharsets.UTF_8);
            try {
                socket.send(new DatagramPacket(b, b.length, from));
            } catch (IOException e) {
                // a lost answer only makes the proxy's transaction retransmit or time out
            }
        }

        @Override
        public void close() throws InterruptedException {
            socket.close();
            reader.join(5_000);
        }
    }
}
