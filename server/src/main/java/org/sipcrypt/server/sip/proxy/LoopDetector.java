package org.sipcrypt.server.sip.proxy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.ListIterator;
import java.util.concurrent.atomic.AtomicLong;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.Header;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import org.sipcrypt.server.sip.LocalDomains;

/**
 * Loop detection by branch parameter (RFC 3261 §16.6 step 8, §16.3 step 4): the branch of each Via
 * this proxy adds carries a hash of the fields that identify the request as received; a request
 * that arrives again with one of our Vias carrying the same hash has looped (482), while one whose
 * fields changed (another Request-URI) is a legal spiral.
 * Threading: thread-safe; never blocks.
 */
public final class LoopDetector {

    /** Prefix of every branch this proxy creates, after the RFC 3261 magic cookie. */
    static final String PREFIX = "z9hG4bK-sc-";

    private final LocalDomains local;
    private final AtomicLong counter = new AtomicLong();

    public LoopDetector(LocalDomains local) {
        this.local = local;
    }

    /** A new, unique branch for a request forwarded from {@code received}. */
    public String branch(Request received) {
        return PREFIX + hash(received) + "." + Long.toString(counter.incrementAndGet(), 36);
    }

    /** A branch that is the same for every retransmission of a statelessly forwarded request (§16.11). */
    public String statelessBranch(Request received) {
        return PREFIX + hash(received) + ".s";
    }

    /** Whether the request carries a Via of ours whose hash matches it: a loop. */
    public boolean isLoop(Request request) {
        String h = null;
        ListIterator<?> vias = request.getHeaders(ViaHeader.NAME);
        while (vias.hasNext()) {
            ViaHeader via = (ViaHeader) vias.next();
            String branch = via.getBranch();
            if (branch == null || !branch.startsWith(PREFIX) || !local.isLocal(via.getHost(), via.getPort())) {
                continue;
            }
            if (h == null) {
                h = hash(request);
            }
            if (branch.startsWith(PREFIX + h + ".")) {
                return true;
            }
        }
        return false;
    }

    /** Hash of Request-URI, From tag, To tag, Call-ID, CSeq number and Route headers. */
    static String hash(Request r) {
        StringBuilder sb = new StringBuilder(256);
        sb.append(r.getRequestURI()).append('|');
        FromHeader from = (FromHeader) r.getHeader(FromHeader.NAME);
        ToHeader to = (ToHeader) r.getHeader(ToHeader.NAME);
        sb.append(from == null ? "" : from.getTag()).append('|');
        sb.append(to == null ? "" : to.getTag()).append('|');
        sb.append(((CallIdHeader) r.getHeader(CallIdHeader.NAME)).getCallId()).append('|');
        sb.append(((CSeqHeader) r.getHeader(CSeqHeader.NAME)).getSeqNumber()).append('|');
        ListIterator<?> routes = r.getHeaders("Route");
        while (routes != null && routes.hasNext()) {
            sb.append(((Header) routes.next()).toString().trim()).append(',');
        }
        return digest(sb);
    }

    /**
     * {@link #statelessBranch(Request)} for a request read from its bytes: the same fields, as the
     * bytes spell them (every retransmission spells them alike).
     *
     * @param routes the values of its Route header lines, in order
     */
    static String statelessBranch(String requestUri, String fromTag, String toTag, String callId, String cseqNumber,
                                  List<String> routes) {
        StringBuilder sb = new StringBuilder(256).append(requestUri).append('|')
                .append(fromTag == null ? "" : fromTag).append('|')
                .append(toTag == null ? "" : toTag).append('|')
                .append(callId).append('|').append(cseqNumber).append('|');
        for (String route : routes) {
            sb.append(route).append(',');
        }
        return PREFIX + digest(sb) + ".s";
    }

    /** The first 8 bytes of the SHA-256 of {@code fields}, in hex. */
    private static String digest(CharSequence fields) {
        byte[] d = SHA_256.get().digest(fields.toString().getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(d, 0, 8);
    }

    /** One digest per thread: looking the algorithm up for every request cost as much as hashing. */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    });
}
