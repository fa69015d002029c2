package org.sipcrypt.server.sip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.parser.StringMsgParser;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sip.SipFactory;
import javax.sip.header.HeaderFactory;
import javax.sip.message.Request;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The registrar's rules (RFC 3261 §10.3) on parsed REGISTER requests, without a database. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RegistrarRulesTest {

    private static final ExpiresPolicy POLICY =
            new ExpiresPolicy(Duration.ofSeconds(60), Duration.ofHours(2), Duration.ofHours(1));
    private static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");
    private static HeaderFactory headers;

    @BeforeAll
    static void factories() throws Exception {
        headers = SipFactory.getInstance().createHeaderFactory();
    }

    private static Request register(String contacts, String extra) throws Exception {
        return register(contacts, extra, "");
    }

    private static Request register(String contacts, String extra, String viaParams) throws Exception {
        String text = "REGISTER sip:example.com SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK1" + viaParams + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:Alice@Example.COM:5060>;tag=1\r\n"
                + "To: <sip:Alice@Example.COM:5060>\r\n"
                + "Call-ID: reg-1\r\nCSeq: 7 REGISTER\r\n"
                + contacts + extra + "Content-Length: 0\r\n\r\n";
        return (Request) new StringMsgParser().parseSIPMessage(text.getBytes(StandardCharsets.UTF_8), true, false, null);
    }

    private static Registrar.Decision decide(Request r) {
        return Registrar.decide(r, POLICY, 10, NOW, "udp:127.0.0.1:5070", headers);
    }

    static Stream<Arguments> outboundRegistrations() {
        String outbound = "Contact: <sip:a@10.0.0.1;transport=tcp>;+sip.instance=\"<urn:uuid:00000000-0000-1000-8000-"
                + "000000000001>\";reg-id=1\r\n";
        return Stream.of(
                Arguments.of("Supported: outbound, reg-id, one Via (baresip 1.0.0)", outbound,
                        "Supported: gruu, outbound, path\r\n", true),
                Arguments.of("no Supported: outbound", outbound, "Supported: path\r\n", false),
                Arguments.of("a Via parameter ob instead of Supported", outbound, ";ob", false),
                Arguments.of("through another proxy (two Vias, no Path kept)", outbound,
                        "Supported: outbound\r\nVia: SIP/2.0/TCP 192.0.2.9;branch=z9hG4bK9\r\n", false),
                Arguments.of("no reg-id", "Contact: <sip:a@10.0.0.1;transport=tcp>\r\n", "Supported: outbound\r\n",
                        false));
    }

    /** RFC 5626 §6: which REGISTERs get Require: outbound and a Flow-Timer. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("outboundRegistrations")
    void outboundIsConfirmedForSupportedOutboundStraightFromThePhone(String rule, String contact, String extra,
                                                                      boolean confirmed) throws Exception {
        // a Via parameter (";ob") goes on the one Via; anything else is a header line
        Request r = extra.startsWith(";") ? register(contact, "", extra) : register(contact, extra, "");
        Registrar.Decision d = decide(r);
        assertEquals(0, d.status);
        assertEquals(confirmed, Registrar.outboundRequested(r, d.change), rule);
    }

    @Test
    void aorIsUserAtLowerCaseHostWithoutPort() throws Exception {
        Registrar.Decision d = decide(register("Contact: <sip:alice@10.0.0.1:5070>\r\n", ""));
        assertEquals(0, d.status);
        assertEquals("sip:Alice@example.com", d.change.aor());
        assertEquals("reg-1", d.change.callId());
        assertEquals(7, d.change.cseq());
    }

    @Test
    void contactExpiresParameterBeatsExpiresHeaderAndDefaultApplies() throws Exception {
        Registrar.Decision d = decide(register(
                "Contact: <sip:a@10.0.0.1>;expires=120, <sip:a@10.0.0.2>\r\nContact: <sip:a@10.0.0.3;transport=TCP>;q=0.5\r\n",
                "Expires: 300\r\n"));
        assertEquals(3, d.change.contacts().size());
        assertEquals(Duration.ofSeconds(120), d.change.contacts().get(0).expires());
        assertEquals(Duration.ofSeconds(300), d.change.contacts().get(1).expires());
        assertEquals(Duration.ofSeconds(300), d.change.contacts().get(2).expires());
        assertEquals(0.5f, d.change.contacts().get(2).q());
        assertEquals("sip:a@10.0.0.3;transport=tcp", d.change.contacts().get(2).contactKey());
    }

    static Stream<Arguments> singleContactLifetimes() {
        return Stream.of(
                Arguments.of("without expires the default applies", "", Duration.ofHours(1)),
                Arguments.of("too long expires is shortened to the maximum", ";expires=999999", Duration.ofHours(2)),
                Arguments.of("zero expires is a removal, not too brief", ";expires=0", Duration.ZERO));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("singleContactLifetimes")
    void aSingleContactGetsTheLifetimeThePolicyAllows(String rule, String expiresParameter, Duration expected)
            throws Exception {
        Registrar.Decision d = decide(register("Contact: <sip:a@10.0.0.1>" + expiresParameter + "\r\n", ""));
        assertEquals(0, d.status);
        assertEquals(expected, d.change.contacts().get(0).expires());
    }

    @Test
    void tooBriefExpiresGets423WithMinExpires() throws Exception {
        Registrar.Decision d = decide(register("Contact: <sip:a@10.0.0.1>;expires=10\r\n", ""));
        assertEquals(423, d.status);
        assertTrue(d.extra.get(0).toString().startsWith("Min-Expires: 60"), d.extra.toString());
        assertNull(d.change);
    }

    @Test
    void wildcardWithExpiresZeroRemovesAll() throws Exception {
        Registrar.Decision d = decide(register("Contact: *\r\n", "Expires: 0\r\n"));
        assertEquals(0, d.status);
        assertTrue(d.change.removeAll());
    }

    @Test
    void wildcardWithoutExpiresZeroOrWithOtherContactsGets400() throws Exception {
        assertEquals(400, decide(register("Contact: *\r\n", "Expires: 60\r\n")).status);
        assertEquals(400, decide(register("Contact: *\r\n", "")).status);
        assertEquals(400, decide(register("Contact: *\r\nContact: <sip:a@10.0.0.1>\r\n", "Expires: 0\r\n")).status);
    }

    @Test
    void noContactIsAQuery() throws Exception {
        Registrar.Decision d = decide(register("", ""));
        assertEquals(0, d.status);
        assertFalse(d.change.removeAll());
        assertTrue(d.change.contacts().isEmpty());
    }

    @Test
    void requiredExtensionGets420ListingItAsUnsupported() throws Exception {
        Registrar.Decision d = decide(register("Contact: <sip:a@10.0.0.1>\r\n", "Require: gruu\r\n"));
        assertEquals(420, d.status);
        assertTrue(d.extra.get(0).toString().contains("gruu"), d.extra.toString());
    }

    @Test
    void requireOfPathIsAccepted() throws Exception {
        assertEquals(0, decide(register("Contact: <sip:a@10.0.0.1>\r\n", "Require: path\r\n")).status);
    }

    @Test
    void pathEntriesAreKeptInTheirOrderAsOneText() throws Exception {
        Registrar.Decision d = Registrar.path(register("Contact: <sip:a@10.0.0.1>\r\n",
                "Path: <sip:a.example.com;lr>, <sip:b.example.com;lr>\r\nPath: <sip:c.example.com;lr>\r\n"
                        + "Supported: path\r\n"), headers);
        assertEquals(0, d.status);
        java.util.List<String> entries = PathVector.split(d.path);
        assertEquals(3, entries.size(), d.path);
        assertTrue(entries.get(0).contains("a.example.com") && entries.get(1).contains("b.example.com")
                && entries.get(2).contains("c.example.com"), d.path);
    }

    @Test
    void pathWhoseFirstHopDoesNotRouteLooselyGets400() throws Exception {
        Registrar.Decision d = Registrar.path(register("Contact: <sip:a@10.0.0.1>\r\n",
                "Path: <sip:a.example.com>\r\nSupported: path\r\n"), headers);
        assertEquals(400, d.status);
        assertEquals("bad_path", d.tag);
    }

    @Test
    void pathSplitsAtCommasOutsideBracketsAndQuotes() {
        assertEquals(java.util.List.of("\"Edge, West\" <sip:a.example.com;lr>", "<sip:b.example.com;lr;x=\"1,2\">"),
                PathVector.split(" \"Edge, West\" <sip:a.example.com;lr> ,<sip:b.example.com;lr;x=\"1,2\">,"));
    }
}
