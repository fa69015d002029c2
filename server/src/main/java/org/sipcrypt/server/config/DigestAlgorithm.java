package org.sipcrypt.server.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;

/**
 * A digest algorithm of HTTP/SIP digest authentication (RFC 7616 §3.4.1, RFC 8760 for SIP): the
 * hash behind HA1, HA2 and the response. Only the non-session variants are supported: SIP user
 * agents do not use {@code -sess}.
 * Threading: thread-safe; each thread hashes with its own {@code MessageDigest}.
 */
public enum DigestAlgorithm {

    /** SHA-256 (RFC 7616, RFC 8760): offered first, the preferred challenge. */
    SHA_256("SHA-256", "SHA-256"),
    /** MD5 (RFC 2617, RFC 3261 §22.4): what most deployed SIP user agents speak. */
    MD5("MD5", "MD5");

    private static final HexFormat HEX = HexFormat.of();

    private final String token;
    private final String jcaName;
    /** Looked up once per thread: a JCA provider lookup per hash would cost more than the hash. */
    private final ThreadLocal<MessageDigest> digests = ThreadLocal.withInitial(this::newDigest);

    DigestAlgorithm(String token, String jcaName) {
        this.token = token;
        this.jcaName = jcaName;
    }

    /** The value of the {@code algorithm} parameter: {@code SHA-256}, {@code MD5}. */
    public String token() {
        return token;
    }

    /** The name in configuration: {@code sha-256}, {@code md5}. */
    public String configName() {
        return token.toLowerCase(Locale.ROOT);
    }

    /**
     * The algorithm an {@code algorithm} parameter names, case-insensitively; a missing parameter
     * means MD5 (RFC 2617 §3.2.1). Null when it names one we do not support.
     */
    public static DigestAlgorithm fromToken(String tokenOrNull) {
        if (tokenOrNull == null) {
            return MD5;
        }
        for (DigestAlgorithm a : values()) {
            if (a.token.equalsIgnoreCase(tokenOrNull.trim())) {
                return a;
            }
        }
        return null;
    }

    /** The lower-case hex hash of the parts joined by colons, UTF-8 encoded. */
    public String hash(String... parts) {
        MessageDigest md = digests.get();
        md.reset();
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                md.update((byte) ':');
            }
            md.update(parts[i].getBytes(StandardCharsets.UTF_8));
        }
        return HEX.formatHex(md.digest());
    }

    /** HA1 = H(username:realm:password) (RFC 7616 §3.4.2); what the subscriber store keeps. */
    public String ha1(String username, String realm, String password) {
        return hash(Objects.requireNonNull(username, "username"), Objects.requireNonNull(realm, "realm"),
                Objects.requireNonNull(password, "password"));
    }

    /**
     * The expected {@code response} (RFC 7616 §3.4.1 with HA2 = H(method:uri) of §3.4.3): with
     * {@code qop=auth} it is H(HA1:nonce:nc:cnonce:qop:HA2); with no qop (the legacy RFC 2069 form)
     * H(HA1:nonce:HA2).
     *
     * @param qop {@code "auth"} or null for the legacy form; {@code nc} and {@code cnonce} are
     *            ignored when it is null
     */
    public String response(String ha1, String nonce, String nc, String cnonce, String qop,
                           String method, String uri) {
        String ha2 = hash(method, uri);
        if (qop == null) {
            return hash(ha1, nonce, ha2);
        }
        return hash(ha1, nonce, nc, cnonce, qop, ha2);
    }

    /** Whether two hex digests are equal, in time independent of where they differ. */
    public static boolean sameDigest(String expected, String given) {
        byte[] a = expected.getBytes(StandardCharsets.US_ASCII);
        byte[] b = given.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(a, b);
    }

    private MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance(jcaName);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks " + jcaName + ", which every Java platform must have", e);
        }
    }
}
