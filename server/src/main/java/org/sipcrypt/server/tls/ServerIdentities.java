package org.sipcrypt.server.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.config.TlsDomainConfig;

/**
 * One complete, checked set of what the tls listener presents: the default certificate and key
 * ({@code tls.cert}/{@code tls.key}) and those of each {@code tls.domain}, and the choice among them
 * by the server_name of a ClientHello (RFC 6066 §3): an exact name first, then a wildcard
 * {@code *.example.com} covering exactly the first label (RFC 6125 §6.4.3), then the default, or
 * nothing with {@code tls.unknownServerName=refuse}. A set is only made when every file parses, every
 * key matches its certificate and every certificate is valid now; it never changes after.
 * Threading: immutable.
 */
public final class ServerIdentities {

    /**
     * One certificate chain with its key and the name it is chosen by.
     * Threading: immutable.
     *
     * @param name      the {@code tls.domain} name, or {@code "default"} for {@code tls.cert}
     * @param material  chain and key
     * @param contentId SHA-256 of the chain's and the key's encodings, in hex: the same for the same
     *                  files read again, so that a reload leaving a certificate unchanged keeps what
     *                  the openssl engine made of it natively
     */
    public record Identity(String name, KeyMaterial material, String contentId) {

        public Identity {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(material, "material");
            Objects.requireNonNull(contentId, "contentId");
        }

        /** The identity of {@code material} under {@code name}, its content id computed. */
        public Identity(String name, KeyMaterial material) {
            this(name, material, ServerIdentities.contentId(material));
        }

        /** The end-entity certificate. */
        public X509Certificate leaf() {
            return material.chain().get(0);
        }
    }

    /** The name of the listener's own certificate in metrics and logs. */
    public static final String DEFAULT_NAME = "default";

    private static final AtomicLong SERIALS = new AtomicLong();

    private final long serial = SERIALS.incrementAndGet();
    private final Identity fallback;
    private final Map<String, Identity> exact;
    /** Wildcard entries by the part after {@code *.}. */
    private final Map<String, Identity> wildcard;
    private final List<Identity> all;
    private final boolean refuseUnknown;

    private ServerIdentities(Identity fallback, List<Identity> domains, boolean refuseUnknown) {
        this.fallback = fallback;
        Map<String, Identity> e = new HashMap<>();
        Map<String, Identity> w = new HashMap<>();
        List<Identity> everything = new ArrayList<>();
        if (fallback != null) {
            everything.add(fallback);
        }
        for (Identity d : domains) {
            if (d.name().startsWith("*.")) {
                w.put(d.name().substring(2), d);
            } else {
                e.put(d.name(), d);
            }
            everything.add(d);
        }
        this.exact = Map.copyOf(e);
        this.wildcard = Map.copyOf(w);
        this.all = List.copyOf(everything);
        this.refuseUnknown = refuseUnknown;
    }

    private static String contentId(KeyMaterial m) {
        Objects.requireNonNull(m, "material");
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (X509Certificate c : m.chain()) {
                d.update(c.getEncoded());
            }
            byte[] key = m.key().getEncoded();
            if (key != null) {
                d.update(key);
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 over a certificate chain: " + e.getMessage(), e);
        }
    }

    /** A set of the default identity alone (or none: a side that presents nothing). */
    public static ServerIdentities of(KeyMaterial fallback) {
        return new ServerIdentities(fallback == null ? null : new Identity(DEFAULT_NAME, fallback), List.of(), false);
    }

    /**
     * Reads and checks every file of {@code tls.cert}, {@code tls.key} and {@code tls.domain}.
     *
     * @param now the instant every certificate must be valid at
     * @throws IOException naming the setting and file at fault when any file cannot be read, a key
     *                     does not match its certificate, or a certificate is not valid at {@code now}
     */
    public static ServerIdentities read(TlsConfig t, Instant now) throws IOException {
        Identity fallback = null;
        KeyMaterial m = jdkKey(KeyMaterial.read(t.cert(), t.key(), t.keyPassword()));
        if (m != null) {
            check("tls.cert " + t.cert(), m, now);
            fallback = new Identity(DEFAULT_NAME, m);
        }
        List<Identity> domains = new ArrayList<>();
        for (TlsDomainConfig d : t.domains()) {
            KeyMaterial dm;
            try {
                dm = jdkKey(KeyMaterial.read(d.cert(), d.key(), ""));
            } catch (IOException | RuntimeException e) {
                throw new IOException("tls.domain " + d.name() + ": " + e.getMessage(), e);
            }
            check("tls.domain " + d.name() + " " + d.cert(), dm, now);
            domains.add(new Identity(d.name(), dm));
        }
        return new ServerIdentities(fallback, domains, t.unknownServerName() == TlsConfig.UnknownServerName.REFUSE);
    }

    /**
     * The material with an EC key as the JDK's own provider makes it: a PEM key read while Bouncy
     * Castle is a registered provider comes out as Bouncy Castle's {@code ECDSA} key, and SunJSSE
     * presents a key only when its algorithm is the one it asked for ({@code EC}).
     */
    static KeyMaterial jdkKey(KeyMaterial m) throws IOException {
        if (m == null || !m.key().getAlgorithm().equals("ECDSA")) {
            return m;
        }
        try {
            PrivateKey key = java.security.KeyFactory.getInstance("EC")
                    .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(m.key().getEncoded()));
            return new KeyMaterial(m.chain(), key);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the EC key as the JDK's: " + e.getMessage(), e);
        }
    }

    /**
     * Refuses a chain whose end-entity certificate is not valid at {@code now}, or whose key is not
     * the private half of that certificate's public key (a signature made with the one must verify
     * with the other).
     */
    static void check(String what, KeyMaterial m, Instant now) throws IOException {
        X509Certificate leaf = m.chain().get(0);
        if (now.isBefore(leaf.getNotBefore().toInstant())) {
            throw new IOException(what + ": not valid before " + leaf.getNotBefore().toInstant());
        }
        if (!now.isBefore(leaf.getNotAfter().toInstant())) {
            throw new IOException(what + ": expired at " + leaf.getNotAfter().toInstant());
        }
        if (!matches(m.key(), leaf.getPublicKey())) {
            throw new IOException(what + ": the key is not the certificate's (its public key does not verify"
                    + " a signature made with this key)");
        }
    }

    private static boolean matches(PrivateKey key, PublicKey pub) throws IOException {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC", "ECDSA" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            case "Ed448" -> "Ed448";
            default -> throw new IOException("a " + key.getAlgorithm() + " key is not supported (expected RSA or EC)");
        };
        if (!pub.getAlgorithm().equals(key.getAlgorithm())
                && !(pub.getAlgorithm().startsWith("EC") && key.getAlgorithm().startsWith("EC"))) {
            return false;
        }
        byte[] probe = new byte[32];
        new SecureRandom().nextBytes(probe);
        try {
            Signature s = Signature.getInstance(algorithm);
            s.initSign(key);
            s.update(probe);
            byte[] sig = s.sign();
            Signature v = Signature.getInstance(algorithm);
            v.initVerify(pub);
            v.update(probe);
            return v.verify(sig);
        } catch (GeneralSecurityException e) {
            // a key of another curve or size than the certificate's fails here rather than verifying
            return false;
        }
    }

    /**
     * The identity for a ClientHello's server_name: the exact domain, else a wildcard covering its
     * first label, else the default; null only when the name is unknown and
     * {@code tls.unknownServerName=refuse}, or there is no default.
     *
     * @param serverName the host name sent, or null when the ClientHello had none
     */
    public Identity select(String serverName) {
        if (serverName == null || serverName.isEmpty()) {
            return fallback;
        }
        String name = serverName.toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        Identity d = exact.get(name);
        if (d == null) {
            int dot = name.indexOf('.');
            if (dot > 0) {
                d = wildcard.get(name.substring(dot + 1));
            }
        }
        if (d != null) {
            return d;
        }
        return refuseUnknown ? null : fallback;
    }

    /** The identity by its name ({@link #DEFAULT_NAME} or a {@code tls.domain} name), or null. */
    public Identity named(String name) {
        if (DEFAULT_NAME.equals(name)) {
            return fallback;
        }
        Identity d = exact.get(name);
        if (d == null && name != null && name.startsWith("*.")) {
            d = wildcard.get(name.substring(2));
        }
        return d;
    }

    /** A number no other set in this JVM has: a handshake names the set it chose from by it. */
    public long serial() {
        return serial;
    }

    /** The default identity ({@code tls.cert}), or null when none is configured. */
    public Identity fallback() {
        return fallback;
    }

    /** Every identity, the default first. */
    public List<Identity> all() {
        return all;
    }

    /** Whether a name that matches no domain is refused ({@code tls.unknownServerName=refuse}). */
    public boolean refusesUnknown() {
        return refuseUnknown;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Identity i : all) {
            sb.append(sb.isEmpty() ? "" : ", ").append(i.name()).append(" (")
                    .append(i.leaf().getSubjectX500Principal().getName()).append(", until ")
                    .append(i.leaf().getNotAfter().toInstant()).append(')');
        }
        return sb.toString();
    }
}
