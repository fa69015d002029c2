package org.sipcrypt.lab.loadgen;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.sipcrypt.server.config.DigestAlgorithm;

/**
 * The UAC's side of digest authentication (RFC 3261 §22.2 and §22.3, RFC 7616 §3.4, RFC 8760 for
 * SHA-256 in SIP): parses the challenges of a 401 (WWW-Authenticate) or 407 (Proxy-Authenticate),
 * picks one, and computes the credentials that answer it with the server's {@link DigestAlgorithm}
 * (its unit test holds it to RFC 7616 §3.9.1's worked example, so sharing the hashing does not let a
 * mistake in it pass unseen). Only {@code qop=auth} and the RFC 2069 form without qop are answered,
 * and only MD5 and SHA-256 (no {@code -sess} variants, which SIP user agents do not use).
 * Threading: immutable (static methods and records only).
 */
public final class DigestCredentials {

    private static final HexFormat HEX = HexFormat.of();
    /** The nonce count of the first request answering a nonce (RFC 7616 §3.4: eight hex digits). */
    public static final String FIRST_NONCE_COUNT = "00000001";

    private DigestCredentials() {
    }

    /**
     * One challenge: its scheme and parameters (names in lower case, quoted values unquoted).
     * Threading: immutable.
     *
     * @param scheme the auth scheme, {@code Digest} for the ones answered
     * @param params the parameters by lower-case name
     */
    public record Challenge(String scheme, Map<String, String> params) {

        public Challenge {
            params = Map.copyOf(params);
        }

        /** The {@code realm}, or null. */
        public String realm() {
            return params.get("realm");
        }

        /** The {@code nonce}, or null. */
        public String nonce() {
            return params.get("nonce");
        }

        /** The {@code opaque}, or null. */
        public String opaque() {
            return params.get("opaque");
        }

        /** The algorithm, or null when it is one the UAC does not answer. */
        public DigestAlgorithm algorithm() {
            return DigestAlgorithm.fromToken(params.get("algorithm"));
        }

        /** Whether a {@code qop} list was offered; the answer then uses {@code qop=auth}. */
        public boolean offersQop() {
            return params.containsKey("qop");
        }

        /** Whether the UAC can answer it: a Digest challenge with realm and nonce, a known algorithm, auth if qop. */
        public boolean answerable() {
            if (!"Digest".equalsIgnoreCase(scheme) || realm() == null || nonce() == null || algorithm() == null) {
                return false;
            }
            if (!offersQop()) {
                return true;
            }
            // qop-options is a comma-separated list (RFC 7616 §3.3), read in place: every challenge a run
            // answers passes here
            String qops = params.get("qop");
            int from = 0;
            while (from <= qops.length()) {
                int comma = qops.indexOf(',', from);
                int to = comma < 0 ? qops.length() : comma;
                int s = from;
                int e = to;
                while (s < e && qops.charAt(s) <= ' ') {
                    s++;
                }
                while (e > s && qops.charAt(e - 1) <= ' ') {
                    e--;
                }
                if (e - s == 4 && qops.regionMatches(true, s, "auth", 0, 4)) {
                    return true;
                }
                if (comma < 0) {
                    break;
                }
                from = comma + 1;
            }
            return false;
        }
    }

    /**
     * The challenge to answer among the values of a response's WWW-Authenticate or
     * Proxy-Authenticate headers: the first answerable SHA-256 one, else the first answerable MD5
     * one (RFC 8760 §2.4: a server lists its preferred algorithms first, a client uses the first it
     * supports, and SHA-256 is preferred when offered); null when none is answerable.
     */
    public static Challenge choose(List<String> headerValues) {
        Challenge md5 = null;
        for (String v : headerValues) {
            for (Challenge c : parse(v)) {
                if (!c.answerable()) {
                    continue;
                }
                if (c.algorithm() == DigestAlgorithm.SHA_256) {
                    return c;
                }
                if (md5 == null) {
                    md5 = c;
                }
            }
        }
        return md5;
    }

    /**
     * The Authorization or Proxy-Authorization value answering {@code c} for the first request on
     * its nonce (nc {@value #FIRST_NONCE_COUNT}): {@code qop=auth} when qop was offered, else the
     * RFC 2069 form (RFC 7616 §3.4, RFC 3261 §22.4).
     *
     * @param uri    the digest-uri: the Request-URI of the request the credentials go in
     * @param cnonce the client nonce, e.g. from {@link #newCnonce}
     */
    public static String authorization(Challenge c, Credential who, String method, String uri, String cnonce) {
        DigestAlgorithm a = c.algorithm();
        String qop = c.offersQop() ? "auth" : null;
        String ha1 = a.ha1(who.user(), c.realm(), who.password());
        String response = a.response(ha1, c.nonce(), FIRST_NONCE_COUNT, cnonce, qop, method, uri);
        StringBuilder b = new StringBuilder("Digest username=").append(quote(who.user()))
                .append(",realm=").append(quote(c.realm()))
                .append(",nonce=").append(quote(c.nonce()))
                .append(",uri=").append(quote(uri))
                .append(",response=").append(quote(response))
                .append(",algorithm=").append(a.token());
        if (qop != null) {
            b.append(",cnonce=").append(quote(cnonce)).append(",qop=").append(qop).append(",nc=").append(FIRST_NONCE_COUNT);
        }
        if (c.opaque() != null) {
            b.append(",opaque=").append(quote(c.opaque()));
        }
        return b.toString();
    }

    /** A random client nonce of 64 bits in hex. */
    public static String newCnonce() {
        return HEX.toHexDigits(ThreadLocalRandom.current().nextLong());
    }

    /**
     * Parses a header value into its challenges: {@code scheme param=value, param="quoted", ...},
     * where a token not followed by {@code =} starts the next challenge (RFC 7235 §4.1, RFC 3261 §25.1).
     */
    public static List<Challenge> parse(String value) {
        List<Challenge> out = new ArrayList<>();
        Cursor c = new Cursor(value);
        c.skip(" \t,");
        while (!c.done()) {
            String scheme = c.token();
            if (scheme.isEmpty()) {
                break;
            }
            Map<String, String> params = new LinkedHashMap<>();
            while (true) {
                c.skip(" \t,");
                int mark = c.pos;
                String name = c.token();
                c.skip(" \t");
                if (name.isEmpty() || c.peek() != '=') {
                    c.pos = mark;
                    break;
                }
                c.pos++;
                c.skip(" \t");
                params.put(name.toLowerCase(Locale.ROOT), c.peek() == '"' ? c.quoted() : c.token());
            }
            out.add(new Challenge(scheme, params));
        }
        return out;
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** A position in a header value. */
    private static final class Cursor {
        final String s;
        int pos;

        Cursor(String s) {
            this.s = s;
        }

        boolean done() {
            return pos >= s.length();
        }

        char peek() {
            return done() ? 0 : s.charAt(pos);
        }

        void skip(String chars) {
            while (!done() && chars.indexOf(s.charAt(pos)) >= 0) {
                pos++;
            }
        }

        String token() {
            int start = pos;
            while (!done() && " \t,=\"".indexOf(s.charAt(pos)) < 0) {
                pos++;
            }
            return s.substring(start, pos);
        }

        String quoted() {
            StringBuilder b = new StringBuilder();
            pos++;
            while (!done() && s.charAt(pos) != '"') {
                if (s.charAt(pos) == '\\' && pos + 1 < s.length()) {
                    pos++;
                }
                b.append(s.charAt(pos++));
            }
            pos++;
            return b.toString();
        }
    }
}
