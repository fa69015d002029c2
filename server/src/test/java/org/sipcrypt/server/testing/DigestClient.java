package org.sipcrypt.server.testing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The client side of digest authentication for raw-socket tests, written from RFC 7616 §3.4
 * independently of the server's code: reads a challenge header and builds the Authorization or
 * Proxy-Authorization line answering it.
 * Threading: immutable (static methods only).
 */
public final class DigestClient {

    private static final Pattern PARAM = Pattern.compile("(\\w+)=(\"([^\"]*)\"|[^,\\s]+)");

    private DigestClient() {
    }

    /** The challenge lines of a response named {@code header} (e.g. WWW-Authenticate), in order. */
    public static List<String> challenges(String response, String header) {
        return response.lines().filter(l -> l.regionMatches(true, 0, header + ":", 0, header.length() + 1))
                .map(l -> l.substring(header.length() + 1).trim()).toList();
    }

    /** The parameters of a challenge or credentials line, quotes removed. */
    public static Map<String, String> params(String challenge) {
        Map<String, String> m = new LinkedHashMap<>();
        Matcher matcher = PARAM.matcher(challenge);
        while (matcher.find()) {
            m.put(matcher.group(1).toLowerCase(java.util.Locale.ROOT),
                    matcher.group(3) != null ? matcher.group(3) : matcher.group(2));
        }
        return m;
    }

    /** H(text) in lower-case hex with {@code "MD5"} or {@code "SHA-256"}. */
    public static String h(String algorithm, String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalArgumentException(algorithm, e);
        }
    }

    /**
     * The credentials header line (ending in CRLF) answering {@code challenge} with qop=auth.
     *
     * @param header {@code Authorization} or {@code Proxy-Authorization}
     */
    public static String answer(String header, String challenge, String user, String password, String method,
                                String uri, int nc) {
        Map<String, String> p = params(challenge);
        String alg = p.getOrDefault("algorithm", "MD5");
        String realm = p.get("realm");
        String nonce = p.get("nonce");
        String ncText = String.format("%08x", nc);
        String cnonce = "c" + Integer.toHexString(nc * 7919 + 13);
        String ha1 = h(alg, user + ":" + realm + ":" + password);
        String ha2 = h(alg, method + ":" + uri);
        String response = h(alg, ha1 + ":" + nonce + ":" + ncText + ":" + cnonce + ":auth:" + ha2);
        return header + ": Digest username=\"" + user + "\", realm=\"" + realm + "\", nonce=\"" + nonce
                + "\", uri=\"" + uri + "\", response=\"" + response + "\", algorithm=" + alg
                + ", qop=auth, nc=" + ncText + ", cnonce=\"" + cnonce + "\"\r\n";
    }

    /** As {@link #answer} in the legacy form without qop (RFC 2069): response = H(HA1:nonce:HA2). */
    public static String answerWithoutQop(String header, String challenge, String user, String password,
                                          String method, String uri) {
        Map<String, String> p = params(challenge);
        String alg = p.getOrDefault("algorithm", "MD5");
        String ha1 = h(alg, user + ":" + p.get("realm") + ":" + password);
        String response = h(alg, ha1 + ":" + p.get("nonce") + ":" + h(alg, method + ":" + uri));
        return header + ": Digest username=\"" + user + "\", realm=\"" + p.get("realm") + "\", nonce=\""
                + p.get("nonce") + "\", uri=\"" + uri + "\", response=\"" + response + "\", algorithm=" + alg + "\r\n";
    }
}
