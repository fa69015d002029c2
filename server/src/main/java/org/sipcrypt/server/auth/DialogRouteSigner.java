package org.sipcrypt.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.ListIterator;
import java.util.Objects;
import java.util.function.Predicate;
import javax.crypto.Mac;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;

/**
 * Proves that an in-dialog request belongs to a dialog this proxy record-routed, the way
 * Kamailio's rr module marks its Record-Route: the URI this proxy puts in Record-Route (RFC 3261
 * §16.6 step 4) carries a parameter {@value #PARAM} holding an HMAC-SHA256 over the Call-ID and
 * the From tag of the dialog-creating request (the To tag is not known when it is forwarded). The
 * user agents copy it into their route set (§12.1) and send it back as the top Route of every
 * request in the dialog (loose routing, §16.4), where {@link #provesDialog} checks it against the
 * request's Call-ID and its From or To tag (the callee's requests swap the two). A To tag alone
 * proves nothing: anyone can write one.
 *
 * <p>The key is derived from the nonce secret ({@code auth.nonceSecret}, or the random per-start
 * secret), so routes signed before a restart with a random secret no longer prove anything and
 * those requests are challenged like new ones. What this does not prove: that the dialog is still
 * up, nor which target the request goes to; a party to the dialog holding the route can send
 * requests with that Call-ID and tag anywhere (a dialog table would be needed to bind the target).
 * Threading: thread-safe; never blocks.
 */
public final class DialogRouteSigner {

    /** The Record-Route URI parameter carrying the signature. */
    public static final String PARAM = "sc-dlg";

    private static final int MAC_BYTES = 16;
    private static final byte[] LABEL = "sipcrypt record-route v1".getBytes(StandardCharsets.UTF_8);
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final HmacSha256 hmac;

    /**
     * @param secret the server secret (the nonces' key); a key of its own is derived from it so a
     *               route signature can never be taken for a nonce MAC or the other way round
     */
    public DialogRouteSigner(byte[] secret) {
        Objects.requireNonNull(secret, "secret");
        if (secret.length < 16) {
            throw new IllegalArgumentException("route secret must have at least 16 bytes, not " + secret.length);
        }
        this.hmac = new HmacSha256(secret).derive(LABEL);
    }

    /** The signature for a dialog: what goes in the {@value #PARAM} parameter. */
    public String sign(String callId, String fromTag) {
        return ENCODER.encodeToString(mac(callId, fromTag));
    }

    /** The signature for the dialog {@code request} creates (its Call-ID and From tag). */
    public String sign(Request request) {
        return sign(callId(request), fromTag(request));
    }

    /**
     * Whether {@code request} carries back a Record-Route of ours signed for its dialog: the first
     * Route entry naming this server (loose routing), or the Request-URI when it names this server
     * (a strict router, RFC 3261 §16.4), holds a signature over its Call-ID and its From or To tag.
     *
     * @param ours whether a URI names this server
     */
    public boolean provesDialog(Request request, Predicate<URI> ours) {
        String toTag = toTag(request);
        if (toTag == null) {
            return false;
        }
        String signature = null;
        ListIterator<?> routes = request.getHeaders(RouteHeader.NAME);
        if (routes != null && routes.hasNext()) {
            URI top = ((RouteHeader) routes.next()).getAddress().getURI();
            if (ours.test(top) && top instanceof SipURI sip) {
                signature = sip.getParameter(PARAM);
            }
        } else if (ours.test(request.getRequestURI()) && request.getRequestURI() instanceof SipURI sip) {
            signature = sip.getParameter(PARAM);
        }
        return proves(callId(request), fromTag(request), toTag, signature);
    }

    /**
     * Whether {@code signature}, the {@value #PARAM} parameter of the Route entry (or Request-URI)
     * {@link #provesDialog} would read, was signed for the dialog of {@code callId} and the request's
     * From or To tag.
     *
     * @param fromTag the request's From tag, or null
     * @param toTag   the request's To tag, or null (then nothing is proved)
     * @param signature the parameter's value, or null
     */
    public boolean proves(String callId, String fromTag, String toTag, String signature) {
        if (toTag == null || signature == null || signature.isEmpty()) {
            return false;
        }
        byte[] given;
        try {
            given = DECODER.decode(signature);
        } catch (IllegalArgumentException e) {
            return false;
        }
        // both checked whatever the first says, so the time taken tells nothing about which matched
        boolean fromCaller = fromTag != null && MessageDigest.isEqual(mac(callId, fromTag), given);
        boolean fromCallee = MessageDigest.isEqual(mac(callId, toTag), given);
        return fromCaller | fromCallee;
    }

    private byte[] mac(String callId, String tag) {
        Mac mac = hmac.mac();
        mac.update(String.valueOf(callId).getBytes(StandardCharsets.UTF_8));
        // a separator no Call-ID or tag contains (both are tokens), so ("ab","c") and ("a","bc") differ
        mac.update((byte) 0);
        mac.update(String.valueOf(tag).getBytes(StandardCharsets.UTF_8));
        return Arrays.copyOf(mac.doFinal(), MAC_BYTES);
    }

    private static String callId(Request r) {
        CallIdHeader h = (CallIdHeader) r.getHeader(CallIdHeader.NAME);
        return h == null ? null : h.getCallId();
    }

    private static String fromTag(Request r) {
        FromHeader h = (FromHeader) r.getHeader(FromHeader.NAME);
        return h == null ? null : h.getTag();
    }

    private static String toTag(Request r) {
        ToHeader h = (ToHeader) r.getHeader(ToHeader.NAME);
        return h == null ? null : h.getTag();
    }

    /** Never shows the key. */
    @Override
    public String toString() {
        return "DialogRouteSigner[param=" + PARAM + "]";
    }
}
