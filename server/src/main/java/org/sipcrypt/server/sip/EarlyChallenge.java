package org.sipcrypt.server.sip;

import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.sipcrypt.server.auth.AuthResult;
import org.sipcrypt.server.auth.DigestAuthenticator;
import org.sipcrypt.server.auth.DigestChallenge;
import org.sipcrypt.server.config.AuthConfig;
import org.sipcrypt.server.transport.BadRequestResponse;
import org.sipcrypt.server.transport.EarlyAnswers;
import org.sipcrypt.server.transport.SipHead;
import org.sipcrypt.server.transport.TopVia;

/**
 * The 407 digest challenge (RFC 3261 §22.3) of an INVITE that carries no credentials, given from
 * its raw bytes over UDP before it is parsed or has a transaction: with authentication on, the
 * first INVITE of every call. The stack would parse it, open a server transaction, check that there
 * are no credentials, hop to the call's lane and build the 407 as a message, all for an answer the
 * request's first lines decide. The transport keeps the response with the INVITE's key, so
 * retransmissions get the same 407 and the ACK is absorbed, as for a 407 the stack sends.
 * <p>Only an INVITE {@link SipDispatcher} would challenge whatever the rest of it says goes this
 * way: {@code auth.methods} challenges INVITE, it comes from a source that is not a trusted peer,
 * while the server is not draining, with no Proxy-Authorization at all (credentials for another
 * realm included), no Route (which may prove a dialog of ours) and no To tag, a sip or sips
 * Request-URI, a From, To, Call-ID and Contact, and a CSeq of a number and INVITE (the transport
 * checks the request line's version, repeated headers and the branch first). Everything else, and
 * every other method, goes to the stack. A request malformed in a way only the parse finds (a From
 * without a valid URI, say) gets this 407 instead of a 400; the retry with credentials is parsed
 * and gets the 400. The 407 copies every Via line (780 of them make 50 KB); it is kept for Timer H
 * within {@code overload.maxKeptBytes}, which bounds what such requests can hold. Large ones are
 * not sent to the stack instead: its path holds the parsed request (about 1 KB per Via line, 0.8 MB
 * for 780) in a transaction until the 407, and until Timer H once a 100 Trying has gone.
 * The counters move as on the stack's path: {@code sip.requests.received}, {@code
 * auth.outcomes{result=no_credentials}} and {@code sip.responses.sent{status=407}}.
 * Threading: thread-safe; never blocks; called on SIP worker lanes.
 */
public final class EarlyChallenge implements EarlyAnswers {

    private static final AuthResult NO_CREDENTIALS = new AuthResult.Challenge(false, "no_credentials");
    private static final String REASON = "Proxy Authentication Required";

    private final SipContext ctx;
    private final AuthConfig config;
    private final DigestAuthenticator auth;

    public EarlyChallenge(SipContext ctx, AuthConfig config, DigestAuthenticator auth) {
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.config = Objects.requireNonNull(config, "config");
        this.auth = Objects.requireNonNull(auth, "auth");
    }

    @Override
    public boolean answers(SipHead request, String method, InetSocketAddress source) {
        return Request.INVITE.equals(method) && config.challenges(method) && !ctx.draining()
                && !config.trusted(source.getAddress())
                && request.count("proxy-authorization") == 0
                && request.count("route") == 0
                && plain(request, method);
    }

    @Override
    public byte[] answer(SipHead request, String method, TopVia via, InetSocketAddress source) {
        String client = source.getAddress().getHostAddress();
        byte[] response = BadRequestResponse.build(request.bytes(), Response.PROXY_AUTHENTICATION_REQUIRED, REASON,
                Long.toHexString(ThreadLocalRandom.current().nextLong()),
                DigestChallenge.lines(auth, false, client, false), via, source);
        if (response == null) {
            return null;
        }
        ctx.counters().requestReceived(method);
        auth.count(NO_CREDENTIALS);
        ctx.counters().responseSent(Response.PROXY_AUTHENTICATION_REQUIRED);
        return response;
    }

    /**
     * Whether the request line and the headers the challenge depends on are in the form the parse
     * would accept and the dispatcher would challenge: a sip or sips Request-URI, no To tag, a From,
     * To, Call-ID and Contact (JAIN-SIP requires one of an INVITE without a To tag), and a CSeq of a
     * number and the request's method.
     */
    private static boolean plain(SipHead request, String method) {
        int uri = method.length() + 1;
        byte[] bytes = request.bytes();
        if (!startsWithIgnoreCase(bytes, uri, "sip:") && !startsWithIgnoreCase(bytes, uri, "sips:")) {
            return false;
        }
        String to = request.value("to");
        String from = request.value("from");
        String callId = request.callId();
        // the CSeq: a sequence number below 2^31 and exactly the request's method
        if (to == null || to.isEmpty() || to.toLowerCase(Locale.ROOT).contains("tag")
                || from == null || from.isEmpty() || callId == null || callId.isEmpty()
                || request.cseqNumber() < 0 || !method.equals(request.cseqMethod())) {
            return false;
        }
        String contact = request.value("contact");
        return contact != null && !contact.isEmpty();
    }

    /** Whether the bytes at {@code at} spell {@code prefix} (lower-case letters and punctuation), in any case. */
    private static boolean startsWithIgnoreCase(byte[] bytes, int at, String prefix) {
        if (bytes.length < at + prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            int c = bytes[at + i];
            if ((c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c) != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
