package org.sipcrypt.server.sip.proxy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;
import java.util.List;
import java.util.ListIterator;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.Header;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import org.sipcrypt.server.auth.HmacSha256;
import org.sipcrypt.server.sip.LocalDomains;

/**
 * The branches of the Vias this proxy adds (RFC 3261 §16.6 step 8). Each carries a hash of the
 * fields that identify the request as received, for loop detection (§16.3 step 4): a request that
 * arrives again with one of our Vias carrying the same hash has looped (482), while one whose fields
 * changed (another Request-URI) is a legal spiral. Each also carries a check: a MAC, under a key
 * drawn at random when the server starts, over the rest of the branch and the place the response
 * must go back to (the {@code received} address, else the sent-by host, and the {@code rport}, else
 * the sent-by port of the Via below ours, as the request left here). A response that finds no
 * transaction is relayed only when {@link #vouchesFor} its top Via: one whose branch this server
 * did not write, or whose next Via names another destination than the request came from, is
 * dropped and counted, so a forged response can neither be reflected to a third address nor make
 * the server keep an answer for it.
 * <p>Forms: {@code z9hG4bK-sc-<hash>.<counter>.<check>} for a request forwarded statefully,
 * {@code z9hG4bK-sc-<hash>.<check>.s} for one relayed statelessly (the same for every
 * retransmission, §16.11). Branches signed before a restart are no longer vouched for.
 * Threading: thread-safe; never blocks.
 */
public final class LoopDetector {

    /** Prefix of every branch this proxy creates, after the RFC 3261 magic cookie. */
    static final String PREFIX = "z9hG4bK-sc-";

    /** Bytes of the check kept in a branch (hex, twice as many characters). */
    private static final int CHECK_BYTES = 8;

    private final LocalDomains local;
    private final AtomicLong counter = new AtomicLong();
    private final HmacSha256 key;

    /** With a check key drawn at random. */
    public LoopDetector(LocalDomains local) {
        this(local, randomKey());
    }

    /** @param key the key of the branch checks (at least 16 bytes; copied) */
    public LoopDetector(LocalDomains local, byte[] key) {
        this.local = local;
        if (key.length < 16) {
            throw new IllegalArgumentException("branch key must have at least 16 bytes, not " + key.length);
        }
        this.key = new HmacSha256(key);
    }

    /** A new, unique branch for a request forwarded from {@code received}. */
    public String branch(Request received) {
        String body = hash(received) + "." + Long.toString(counter.incrementAndGet(), 36);
        return PREFIX + body + "." + check(body, returnPath(topVia(received)));
    }

    /** A branch that is the same for every retransmission of a statelessly forwarded request (§16.11). */
    public String statelessBranch(Request received) {
        String hash = hash(received);
        return PREFIX + hash + "." + check(hash + ".s", returnPath(topVia(received))) + ".s";
    }

    /**
     * Whether {@code branch}, the top Via's branch of a response that has no transaction here, is
     * one this server wrote for a request whose response goes to {@code returnPath} (the next Via's
     * {@link #returnPath(String, String, String, String, String) return path}).
     */
    public boolean vouchesFor(String branch, String returnPath) {
        if (branch == null || returnPath == null || !branch.startsWith(PREFIX)) {
            return false;
        }
        // the branch may come back in another case (the stack looks transactions up in lower case);
        // every branch written here is lower case
        String rest = branch.substring(PREFIX.length()).toLowerCase(Locale.ROOT);
        String body;
        String given;
        if (rest.endsWith(".s")) {
            int dot = rest.lastIndexOf('.', rest.length() - 3);
            if (dot < 0) {
                return false;
            }
            body = rest.substring(0, dot) + ".s";
            given = rest.substring(dot + 1, rest.length() - 2);
        } else {
            int dot = rest.lastIndexOf('.');
            if (dot < 0) {
                return false;
            }
            body = rest.substring(0, dot);
            given = rest.substring(dot + 1);
        }
        return MessageDigest.isEqual(check(body, returnPath).getBytes(StandardCharsets.US_ASCII),
                given.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Where a response goes back by a Via entry (RFC 3261 §18.2.2, RFC 3581 §4), and the key its
     * transaction is kept under there, as the text the branch check covers: the {@code received}
     * address, else the sent-by host, then the {@code rport} value, else the sent-by port, else
     * nothing ({@code host:}), then that Via's branch; lower case.
     *
     * @param received the {@code received} parameter's value, or null
     * @param rport    the {@code rport} parameter's value, or null or empty when it has none
     * @param port     the sent-by port as written, or null when there is none
     * @param branch   the entry's branch, or null when it has none
     */
    public static String returnPath(String host, String port, String received, String rport, String branch) {
        String h = received != null && !received.isEmpty() ? received : host;
        String p = rport != null && !rport.isEmpty() ? rport : port == null ? "" : port;
        return (h + ":" + p + "|" + (branch == null ? "" : branch)).toLowerCase(Locale.ROOT);
    }

    /** {@link #returnPath(String, String, String, String, String)} of a parsed Via. */
    static String returnPath(ViaHeader via) {
        if (via == null) {
            return null;
        }
        return returnPath(via.getHost(), via.getPort() > 0 ? Integer.toString(via.getPort()) : null,
                via.getReceived(), via.getRPort() > 0 ? Integer.toString(via.getRPort()) : null, via.getBranch());
    }

    private static ViaHeader topVia(Request r) {
        return (ViaHeader) r.getHeader(ViaHeader.NAME);
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
     * @param returnPath where its response goes back, as {@link #returnPath(String, String, String, String, String)}
     */
    String statelessBranch(String requestUri, String fromTag, String toTag, String callId, String cseqNumber,
                           List<String> routes, String returnPath) {
        StringBuilder sb = new StringBuilder(256).append(requestUri).append('|')
                .append(fromTag == null ? "" : fromTag).append('|')
                .append(toTag == null ? "" : toTag).append('|')
                .append(callId).append('|').append(cseqNumber).append('|');
        for (String route : routes) {
            sb.append(route).append(',');
        }
        String hash = digest(sb);
        return PREFIX + hash + "." + check(hash + ".s", returnPath) + ".s";
    }

    /** The check of a branch's {@code body} for a response going back to {@code returnPath}, in hex. */
    private String check(String body, String returnPath) {
        Mac mac = key.mac();
        mac.update(body.getBytes(StandardCharsets.US_ASCII));
        mac.update((byte) 0);
        mac.update(String.valueOf(returnPath).getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(mac.doFinal(), 0, CHECK_BYTES);
    }

    private static byte[] randomKey() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return k;
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
