package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.sip.SipFactory;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The signed Record-Route that proves an in-dialog request belongs to a dialog we record-routed. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
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
    void routeSignedForTheCallerNamesTheCallersTagInEitherDirection() throws Exception {
        String sig = signer.sign("call-1", "alice-tag");
        assertEquals("alice-tag", signer.signedTag(request("sip:bob@127.0.0.1:5080", "alice-tag", "bob-tag",
                route(sig)), OURS));
        // the callee's request: From and To swapped
        assertEquals("alice-tag", signer.signedTag(request("sip:alice@127.0.0.1:5070", "bob-tag", "alice-tag",
                route(sig)), OURS));
    }

    @Test
    void onlyTheOneCanonicalTextOfASignatureIsAccepted() throws Exception {
        String sig = signer.sign("call-1", "alice-tag");
        // the last of 22 characters carries 2 bits of the MAC and 4 unused ones; 'A' 'Q' 'g' 'w' have them zero
        char last = sig.charAt(21);
        String otherUnusedBits = sig.substring(0, 21) + (char) (last == 'w' ? 'x' : last + 1);
        for (String malleated : new String[] {sig + "==", otherUnusedBits}) {
            // the same MAC bytes to a lenient decoder, so only the text comparison refuses them
            assertArrayEquals(Base64.getUrlDecoder().decode(sig), Base64.getUrlDecoder().decode(malleated), malleated);
            assertNull(signer.signedTag("call-1", "alice-tag", "bob-tag", malleated), malleated);
        }
        assertNull(signer.signedTag("call-1", "alice-tag", "bob-tag", sig.toLowerCase(java.util.Locale.ROOT)));
        assertEquals("alice-tag", signer.signedTag("call-1", "alice-tag", "bob-tag", sig));
    }

    @Test
    void toTagWithoutSignedRouteProvesNothing() throws Exception {
        assertNull(signer.signedTag(request("sip:bob@127.0.0.1:5080", "alice-tag", "bob-tag", null), OURS));
        assertNull(signer.signedTag(request("sip:bob@127.0.0.1:5080", "alice-tag", "bob-tag",
                "<sip:" + US + ";lr>"), OURS));
        assertNull(signer.signedTag(request("sip:bob@127.0.0.1:5080", "alice-tag", "bob-tag",
                route("AAAAAAAAAAAAAAAAAAAAAA")), OURS));
        assertNull(signer.signedTag(request("sip:bob@127.0.0.1:5080", "alice-tag", "bob-tag", route("not*base64")),
                OURS));
    }

    @Test
    void signatureIsBoundToCallIdTagsKeyAndOurAddress() throws Exception {
        String sig = signer.sign("call-1", "alice-tag");
        assertNull(signer.signedTag(request("sip:bob@127.0.0.1:5080", "mallory", "bob-tag", route(sig)), OURS));
        assertNotEquals(sig, signer.sign("call-2", "alice-tag"));
        assertNotEquals(sig, new DialogRouteSigner("another-secret-of-enough-bytes".getBytes(StandardCharsets.UTF_8))
                .sign("call-1", "alice-tag"));
        String elsewhere = "<sip:127.0.0.9:5060;lr;" + DialogRouteSigner.PARAM + "=" + sig + ">";
        assertNull(signer.signedTag(request("sip:bob@127.0.0.1:5080", "alice-tag", "bob-tag", elsewhere), OURS));
    }

    @Test
    void requestWithoutToTagIsNeverInADialog() throws Exception {
        String sig = signer.sign("call-1", "alice-tag");
        assertNull(signer.signedTag(request("sip:bob@127.0.0.1:5080", "alice-tag", null, route(sig)), OURS));
    }

    @Test
    void strictRouterPutsOurSignedUriInTheRequestUri() throws Exception {
        String sig = signer.sign("call-1", "alice-tag");
        assertEquals("alice-tag", signer.signedTag(request("sip:" + US + ";" + DialogRouteSigner.PARAM + "=" + sig,
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
