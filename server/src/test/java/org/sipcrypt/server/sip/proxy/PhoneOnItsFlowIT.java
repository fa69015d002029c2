package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestPki;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/**
 * A phone that cannot be dialled (RFC 5626 §5.3; a phone behind NAT, or one without a TLS
 * certificate of its own) is reached over the flow it registered on. The phone is a client socket:
 * over TCP and TLS its Contact names a port where a trap listens that must never see a connection,
 * and its Via names that port too (as a phone listening on 5060 writes it), which the registrar
 * takes for a NAT; over UDP its Contact names a documentation address (198.51.100.7) nothing is
 * ever sent to. Another UA calls it through the proxy: INVITE, ACK and BYE (from either side) reach
 * it on its flow, the callee's BYE reaches the caller over the caller's; once its connection has
 * closed, a call to it is answered 480 (430 for an RFC 5626 outbound binding) at once; a flow token
 * altered by one character is refused with 403.
 */
@Timeout(60)
class PhoneOnItsFlowIT {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Pattern FLOW_TOKEN = Pattern.compile("sc-flow=([A-Za-z0-9_-]+)");

    /** The certificates, made once for the class (three RSA keys take a while on a busy machine). */
    @TempDir
    static Path shared;

    @TempDir
    Path dir;

    private static Path certs;

    @BeforeAll
    static void makeCertificates() {
        certs = shared.resolve("certs");
        assertEquals(0, new CommandLine(new CertsCommand()).execute("--out", certs.toString()));
    }

    private TestServer start() throws Exception {
        return TestServer.start(dir.resolve("data"), "listen", "udp:127.0.0.1:0", "listen", "tcp:127.0.0.1:0",
                "listen", "tls:127.0.0.1:0", "tls.cert", certs.resolve("server.pem").toString(),
                "tls.key", certs.resolve("server-key.pem").toString(), "tls.trust", certs.resolve("ca.pem").toString());
    }

    /** The phone: a client connection, trusting the test CA and with no certificate of its own over TLS. */
    private SipSocket phone(TestServer server, Transport t) throws Exception {
        return switch (t) {
            case TLS -> SipSocket.tls(server.address(Transport.TLS), TestPki.sslContext(certs, null, null));
            case TCP -> SipSocket.tcp(server.address(Transport.TCP));
            case UDP -> SipSocket.udp(server.address(Transport.UDP));
            case WS, WSS -> throw new IllegalArgumentException("no raw SIP socket for " + t);
        };
    }

    /**
     * Registers {@code bob} from {@code phone} with {@code contactUri}; its Via names {@code viaHostPort}
     * (null: the socket), with {@code Supported: outbound} when the contact has a reg-id (RFC 5626 §4.2.1).
     * Returns the 200.
     */
    private static String register(TestServer server, SipSocket phone, String contactUri, String viaHostPort,
                                   String contactParams) throws Exception {
        String hp = server.hostPort(Transport.UDP);
        String register = phone.request("REGISTER", "sip:127.0.0.1", "bob", "bob@" + hp, "reg-" + System.nanoTime(),
                1, "Contact: <" + contactUri + ">" + contactParams + "\r\nExpires: 600\r\n");
        if (viaHostPort != null) {
            register = register.replace(phone.localHost() + ":" + phone.localPort() + ";branch",
                    viaHostPort + ";branch");
        }
        if (contactParams.contains("reg-id")) {
            register = register.replace("Content-Length: 0\r\n", "Supported: outbound\r\nContent-Length: 0\r\n");
        }
        String ok = phone.exchange(register, "SIP/2.0 ", WAIT);
        assertNotNull(ok, "an answer to the REGISTER");
        assertTrue(ok.startsWith("SIP/2.0 200"), ok);
        return ok;
    }

    private static List<String> headerValues(String message, String name) {
        return message.lines().filter(l -> l.regionMatches(true, 0, name + ":", 0, name.length() + 1))
                .map(l -> l.substring(name.length() + 1).trim()).toList();
    }

    private static String requestUri(String request) {
        return request.substring(request.indexOf(' ') + 1, request.indexOf(" SIP/2.0"));
    }

    /** The phone's 200 to the INVITE: the request's Via/From/To(tagged)/Call-ID/CSeq, its Record-Routes, a Contact. */
    private static String answer(String invite, String contactUri) {
        String r = SipSocket.response(invite, "200 OK");
        StringBuilder extra = new StringBuilder();
        for (String rr : headerValues(invite, "Record-Route")) {
            extra.append("Record-Route: ").append(rr).append("\r\n");
        }
        extra.append("Contact: <").append(contactUri).append(">\r\n");
        return r.replace("Content-Length: 0\r\n", extra + "Content-Length: 0\r\n");
    }

    /** What a call set up needs for its in-dialog requests. */
    private record Dialog(String callId, String to, String routes, String phoneInvite) {
    }

    /** Calls {@code bob} from {@code caller}; the phone answers 200; returns the caller's view of the dialog. */
    private static Dialog call(SipSocket caller, SipSocket phone, String phoneContact) throws Exception {
        String callId = "flow-call-" + System.nanoTime();
        caller.send(caller.request("INVITE", "sip:bob@127.0.0.1", "alice", "bob@127.0.0.1", callId, 1,
                caller.contact("alice")));
        String invite = phone.awaitMessage("INVITE ", WAIT);
        assertNotNull(invite, "the INVITE reached the phone on its flow");
        assertEquals(phoneContact, requestUri(invite), "the Request-URI is the phone's Contact");
        phone.send(answer(invite, phoneContact));
        String ok = caller.awaitMessage("SIP/2.0 200", WAIT);
        assertNotNull(ok, "the caller got the 200");
        StringBuilder route = new StringBuilder();
        for (String rr : headerValues(ok, "Record-Route")) {
            route.append("Route: ").append(rr).append("\r\n");
        }
        assertTrue(route.toString().contains("sc-flow="), "the proxy's Record-Route carries a flow token: " + ok);
        return new Dialog(callId, headerValues(ok, "To").get(0), route.toString(), invite);
    }

    private static void ack(SipSocket caller, SipSocket phone, Dialog d, String phoneContact) throws Exception {
        caller.send(caller.request("ACK", phoneContact, "alice", "x", d.callId(), 1, d.routes())
                .replace("To: <sip:x>", "To: " + d.to()));
        String ack = phone.awaitMessage("ACK ", WAIT);
        assertNotNull(ack, "the ACK reached the phone on its flow");
        assertEquals(phoneContact, requestUri(ack));
    }

    /** The caller hangs up: the BYE reaches the phone on its flow; its 200 comes back. */
    private static void byeFromCaller(SipSocket caller, SipSocket phone, Dialog d, String phoneContact)
            throws Exception {
        caller.send(caller.request("BYE", phoneContact, "alice", "x", d.callId(), 2, d.routes())
                .replace("To: <sip:x>", "To: " + d.to()));
        String bye = phone.awaitMessage("BYE ", WAIT);
        assertNotNull(bye, "the BYE reached the phone on its flow");
        phone.send(SipSocket.response(bye, "200 OK"));
        String ok = caller.awaitMessage("SIP/2.0 ", WAIT);
        assertNotNull(ok);
        assertTrue(ok.startsWith("SIP/2.0 200") && ok.contains("CSeq: 2 BYE"), ok);
    }

    /** The phone hangs up: the route set is the Record-Route in order, the target the caller's Contact. */
    private static void byeFromPhone(SipSocket caller, SipSocket phone, Dialog d) throws Exception {
        String callerContact = headerValues(d.phoneInvite(), "Contact").get(0).replaceAll("^<|>$", "");
        StringBuilder route = new StringBuilder();
        for (String rr : headerValues(d.phoneInvite(), "Record-Route")) {
            route.append("Route: ").append(rr).append("\r\n");
        }
        String from = headerValues(d.phoneInvite(), "From").get(0);
        String bye = phone.request("BYE", callerContact, "bob", "x", d.callId(), 1, route.toString())
                .replace("From: <sip:bob@" + phone.localHost() + ">;tag=bob-tag", "From: <sip:bob@127.0.0.1>;tag=callee")
                .replace("To: <sip:x>", "To: " + from);
        phone.send(bye);
        String atCaller = caller.awaitMessage("BYE ", WAIT);
        assertNotNull(atCaller, "the phone's BYE reached the caller");
        caller.send(SipSocket.response(atCaller, "200 OK"));
        String ok = phone.awaitMessage("SIP/2.0 ", WAIT);
        assertNotNull(ok, "the 200 to the BYE came back to the phone on its flow");
        assertTrue(ok.startsWith("SIP/2.0 200"), ok);
    }

    @ParameterizedTest(name = "{0}, {1} hangs up, outbound {2}")
    @CsvSource({"TLS, caller, false", "TLS, phone, true", "TCP, phone, false", "TCP, caller, true"})
    void phoneOnAConnectionIsReachedOnItAndNeverDialled(Transport transport, String hangsUp, boolean outbound)
            throws Exception {
        try (TestServer server = start();
             ServerSocket trap = new ServerSocket(0, 5, InetAddress.getByName("127.0.0.1"));
             SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
            String contact = "sip:bob@127.0.0.1:" + trap.getLocalPort() + ";transport="
                    + transport.configName();
            String params = outbound ? ";+sip.instance=\"<urn:uuid:00000000-0000-1000-8000-000000000001>\";reg-id=1"
                    : "";
            try (SipSocket phone = phone(server, transport)) {
                String ok = register(server, phone, contact, "127.0.0.1:" + trap.getLocalPort(), params);
                // RFC 5626 §6: an outbound registration is confirmed with Require: outbound and a Flow-Timer
                assertEquals(outbound, headerValues(ok, "Require").contains("outbound"), ok);
                assertEquals(outbound, !headerValues(ok, "Flow-Timer").isEmpty(), ok);
                assertEquals(1.0, server.server().registry().counter("sip.registrations.nat", "transport",
                        transport.configName()).count());
                Dialog d = call(caller, phone, contact);
                ack(caller, phone, d, contact);
                if (hangsUp.equals("caller")) {
                    byeFromCaller(caller, phone, d, contact);
                } else {
                    byeFromPhone(caller, phone, d);
                }
            }
            Await.until(() -> server.server().transportCounters().openConnections().get() == 0, WAIT,
                    () -> "the phone's connection closed at the server");
            String callId = "flow-gone-" + System.nanoTime();
            caller.send(caller.request("INVITE", "sip:bob@127.0.0.1", "alice", "bob@127.0.0.1", callId, 1,
                    caller.contact("alice")));
            String answer = caller.awaitMessage("SIP/2.0 4", WAIT);
            assertNotNull(answer, "a final answer for the phone whose flow has gone");
            assertTrue(answer.startsWith(outbound ? "SIP/2.0 430" : "SIP/2.0 480"), answer);
            assertEquals(1.0, server.server().registry().counter("sip.flows.failed", "reason", "closed").count());
            trap.setSoTimeout(200);
            assertThrows(SocketTimeoutException.class, trap::accept, "the server never dialled the phone's Contact");
        }
    }

    @Test
    void phoneBehindNatOnUdpIsReachedAtItsSource() throws Exception {
        try (TestServer server = start();
             SipSocket phone = phone(server, Transport.UDP);
             SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
            // behind a NAT, the phone writes its own (unreachable) address in Contact and Via
            String contact = "sip:bob@198.51.100.7:5060";
            register(server, phone, contact, "198.51.100.7:5060", "");
            assertEquals(1.0, server.server().registry().counter("sip.registrations.nat", "transport", "udp").count());
            Dialog d = call(caller, phone, contact);
            ack(caller, phone, d, contact);
            byeFromCaller(caller, phone, d, contact);
        }
    }

    private static double flowsOpen(TestServer server, Transport t) {
        return server.server().registry().find("sip.flows.open").tag("transport", t.configName()).gauge().value();
    }

    @Test
    void openFlowsAreCountedPerTransportWhileTheyCanBeTaken() throws Exception {
        try (TestServer server = start();
             SipSocket natted = phone(server, Transport.UDP)) {
            assertEquals(0.0, flowsOpen(server, Transport.TCP));
            // behind a NAT on UDP: reached at its source, so its flow counts
            register(server, natted, "sip:bob@198.51.100.7:5060", "198.51.100.7:5060", "");
            assertEquals(1.0, flowsOpen(server, Transport.UDP));
            try (SipSocket onTcp = phone(server, Transport.TCP)) {
                register(server, onTcp, "sip:bob@127.0.0.1:" + onTcp.localPort() + ";transport=tcp", null, "");
                assertEquals(1.0, flowsOpen(server, Transport.TCP));
                assertEquals(1.0, flowsOpen(server, Transport.UDP));
                assertEquals(0.0, flowsOpen(server, Transport.TLS));
            }
            Await.until(() -> flowsOpen(server, Transport.TCP) == 0.0, WAIT,
                    () -> "the TCP flow no longer counted once its connection closed");
            assertEquals(1.0, flowsOpen(server, Transport.UDP), "the UDP flow still counts");
        }
    }

    @Test
    void alteredFlowTokenIsRefused() throws Exception {
        try (TestServer server = start();
             SipSocket phone = phone(server, Transport.TLS);
             SipSocket caller = SipSocket.udp(server.address(Transport.UDP))) {
            String contact = "sip:bob@127.0.0.1:9;transport=tls";
            register(server, phone, contact, "127.0.0.1:9", "");
            Dialog d = call(caller, phone, contact);
            Matcher m = FLOW_TOKEN.matcher(d.routes());
            assertTrue(m.find(), d.routes());
            String token = m.group(1);
            char c = token.charAt(10);
            String forged = token.substring(0, 10) + (c == 'A' ? 'B' : 'A') + token.substring(11);
            String bye = caller.request("BYE", contact, "alice", "x", d.callId(), 3,
                    d.routes().replace(token, forged)).replace("To: <sip:x>", "To: " + d.to());
            caller.send(bye);
            String answer = caller.awaitMessage("SIP/2.0 4", WAIT);
            assertNotNull(answer, "an answer to the BYE with an altered flow token");
            assertTrue(answer.startsWith("SIP/2.0 403"), answer);
            assertEquals(1.0, server.server().registry().counter("sip.flows.failed", "reason", "bad_token").count());
            // the token as written still works: the call ends (and the server stops without waiting for it)
            byeFromCaller(caller, phone, d, contact);
        }
    }
}
