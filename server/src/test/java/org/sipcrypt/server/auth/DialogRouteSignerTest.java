package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;
import javax.sip.SipFactory;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;

/** The signed Record-Route that proves an in-dialog request belongs to a dialog we record-routed. */
class DialogRouteSignerTest {

    private static final byte[] SECRET = "a-secret-of-enough-bytes".getBytes(StandardCharsets.UTF_8);
    private static final String US = "127.0.0.1:5060";
    private static final Predicate<URI> OURS = u -> u instanceof SipURI s && s.getHost().equals("127.0.0.1")
            && s.getPort() == 5060;

    private final DialogRouteSigner signer = new DialogRouteSigner(SECRET);

    private static Request request(String firstLineUri, String fromTag, String toTag, String route) throws Exception {
        String text = "BYE " + firstLineUri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK1\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@127.0.0.1>;tag=" + fromTag + "\r\n"
                + "To: <sip:bob@127.0.0.1>" + (toTag == null ? "" : ";tag=" + toTag) + "\r\n"
                + "Call-ID: call-1\r\n"
                + "CSeq: 2 BYE\r\n"
                + (route == null ? "" : "Route: " + route + "\r\n")
                + "Content-Length: 0\r\n\r\n";
        return SipFactory.getInstance().createMessageFactory().createRequest(text);
    }

    private String route(String signature) {
        return "<sip:" + US + ";transport=udp;lr;" + DialogRouteSigner.PARAM + "=" + signature + ">";
    }

    @Test
    void routeSignedForTheCallerProvesRequestsInBothDirections() throws Exception {
        String sig = signer.sign("call-1", "alice-tag");
        assertTrue(signer.provesDialog(request("sip:bob@127.0.0.1:5080", "alice-tag", "bob-tag", route(sig)), OURS));
        // the callee's request: From and To swapped
        assertTrue(signer.provesDialog(request("sip:alice@127.0.0.1:5070", "bob-tag", "alice-tag", route(sig)), OURS));
    }

    @Test
    void toTagWithoutSignedRouteProvesNothing() throws Exception {
        assertFalse(signer.provesDialog(request("sip:bob@127.0.0.1:5080", "alice-tag", "bob-tag", null), OURS));
        assertFalse(signer.provesDialog(request("sip:bob@127.0.0.1:5080", "alice-tag", "bob-tag",
                "<sip:" + US + ";lr>"), OURS));
        assertFalse(signer.provesDialog(request("sip:bob@127.0.0.1:5080", "alice-tag", "bob-tag",
                route("AAAAAAAAAAAAAAAAAAAAAA")), OURS));
        assertFalse(signer.provesDialog(request("sip:bob@127.0.0.1:5080", "alice-tag", "bob-tag", route("not*base64")),
                OURS));
    }

    @Test
    void signatureIsBoundToCallIdTagsKeyAndOurAddress() throws Exception {
        String sig = signer.sign("call-1", "alice-tag");
        assertFalse(signer.provesDialog(request("sip:bob@127.0.0.1:5080", "mallory", "bob-tag", route(sig)), OURS));
        assertNotEquals(sig, signer.sign("call-2", "alice-tag"));
        assertNotEquals(sig, new DialogRouteSigner("another-secret-of-enough-bytes".getBytes(StandardCharsets.UTF_8))
                .sign("call-1", "alice-tag"));
        String elsewhere = "<sip:127.0.0.9:5060;lr;" + DialogRouteSigner.PARAM + "=" + sig + ">";
        assertFalse(signer.provesDialog(request("sip:bob@127.0.0.1:5080", "alice-tag", "bob-tag", elsewhere), OURS));
    }

    @Test
    void requestWithoutToTagIsNeverInADialog() throws Exception {
        String sig = signer.sign("call-1", "alice-tag");
        assertFalse(signer.provesDialog(request("sip:bob@127.0.0.1:5080", "alice-tag", null, route(sig)), OURS));
    }

    @Test
    void strictRouterPutsOurSignedUriInTheRequestUri() throws Exception {
        String sig = signer.sign("call-1", "alice-tag");
        assertTrue(signer.provesDialog(request("sip:" + US + ";" + DialogRouteSigner.PARAM + "=" + sig,
                "alice-tag", "bob-tag", null), OURS));
    }

    @Test
    void signatureIsAUriToken() {
        String sig = signer.sign("call-1", "alice-tag");
        assertEquals(22, sig.length());
        assertTrue(sig.matches("[A-Za-z0-9_-]+"), sig);
        assertThrows(IllegalArgumentException.class, () -> new DialogRouteSigner(new byte[8]));
    }
}
