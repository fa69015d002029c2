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
 * the caller's tag (the From tag of the dialog-creating request; the callee's To tag is not known
 * when it is forwarded). The user agents copy it into their route set (§12.1) and send it back as
 * the top Route of every request in the dialog (loose routing, §16.4), where {@link #signedTag}
 * says which of the request's tags it was signed for: the From tag (a request of the caller) or the
 * To tag (one of the callee, who swaps the two). A To tag alone proves nothing: anyone can write one.
 *
 * <p>What a signature proves, and nothing more: this server issued it for that Call-ID and that
 * caller. Whether the dialog is live, who its callee is, and so whether the request's other tag
 * and direction are right, the caller of this class checks against the dialogs it tracks
 * ({@code AccessPolicy} with {@code EstablishedDialogs}): the route set of a dialog cannot be
 * refreshed (§12.2), so a time in the signature could only cut long calls short, where the tracked
 * dialog is refreshed by its traffic and ended by its BYE. Only one text form is accepted for a
 * signature (22 characters of unpadded base64url, the unused bits of the last one zero): the
 * expected text is computed and compared, so no other encoding of the same bytes passes.
 *
 * <p>The key is derived from the nonce secret ({@code auth.nonceSecret}, or the random per-start
 * secret), so routes signed before a restart with a random secret no longer prove anything.
 * Threading: thread-safe; never blocks.
 */
public final class DialogRouteSigner {

    /** The Record-Route URI parameter carrying the signature. */
    public static final String PARAM = "sc-dlg";

    private static final int MAC_BYTES = 16;
    private static final byte[] LABEL = "sipcrypt record-route v1".getBytes(StandardCharsets.UTF_8);
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    /** Unpadded base64url of 16 bytes. */
    private static final int SIGNATURE_CHARS = 22;

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

    /** The signature for the dialog of {@code callId} whose caller's tag is {@code callerTag}: what goes in the {@value #PARAM} parameter. */
    public String sign(String callId, String callerTag) {
        return ENCODER.encodeToString(mac(callId, callerTag));
    }

    /** The signature for the dialog {@code request} creates (its Call-ID and From tag). */
    public String sign(Request request) {
        return sign(callId(request), fromTag(request));
    }

    /**
     * The signature {@code request} carries back in a Record-Route of ours: that of the first Route
     * entry when it names this server (loose routing), or of the Request-URI when there is no Route
     * and it names this server; else null. A request from a strict router (RFC 3261 §16.4) comes
     * here loosened ({@code StrictRouting}): the Request-URI that router wrote is its first Route.
     *
     * @param ours whether a URI names this server
     */
    public static String signature(Request request, Predicate<URI> ours) {
        ListIterator<?> routes = request.getHeaders(RouteHeader.NAME);
        if (routes != null && routes.hasNext()) {
            URI top = ((RouteHeader) routes.next()).getAddress().getURI();
            return ours.test(top) && top instanceof SipURI sip ? sip.getParameter(PARAM) : null;
        }
        return ours.test(request.getRequestURI()) && request.getRequestURI() instanceof SipURI sip
                ? sip.getParameter(PARAM) : null;
    }

    /** {@link #signedTag(String, String, String, String)} for a parsed request and the signature it carries. */
    public String signedTag(Request request, Predicate<URI> ours) {
        return signedTag(callId(request), fromTag(request), toTag(request), signature(request, ours));
    }

    /**
     * Which of a request's tags {@code signature} was signed for with {@code callId}, that is the
     * caller's tag of the dialog it claims: {@code fromTag} (the request comes from the caller),
     * {@code toTag} (from the callee), or null when neither, when the request has no To tag (it is
     * not in a dialog) or when the signature is not in its one canonical form.
     *
     * @param fromTag   the request's From tag, or null
     * @param toTag     the request's To tag, or null
     * @param signature the {@value #PARAM} parameter {@link #signature} reads, or null
     */
    public String signedTag(String callId, String fromTag, String toTag, String signature) {
        if (callId == null || toTag == null || signature == null || signature.length() != SIGNATURE_CHARS) {
            return null;
        }
        byte[] given = signature.getBytes(StandardCharsets.ISO_8859_1);
        // both checked whatever the first says, so the time taken tells nothing about which matched;
        // the text is compared, not the decoded bytes: padding or other unused bits do not pass
        boolean fromCaller = fromTag != null && MessageDigest.isEqual(text(callId, fromTag), given);
        boolean fromCallee = MessageDigest.isEqual(text(callId, toTag), given);
        return fromCaller ? fromTag : fromCallee ? toTag : null;
    }

    private byte[] text(String callId, String tag) {
        return ENCODER.encode(mac(callId, tag));
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
