package org.sipcrypt.server.auth;

import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * One HMAC-SHA256 key, with a {@link Mac} per thread under it: what nonces, route signatures and
 * the checks in the proxy's Via branches are computed with. Never shows the key.
 * Threading: thread-safe (each thread gets its own Mac); never blocks.
 */
public final class HmacSha256 {

    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;
    private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);

    /** @param key the key bytes (copied) */
    public HmacSha256(byte[] key) {
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    }

    /** The key HMAC({@code this key}, {@code label}): one of its own for each use of a shared secret. */
    HmacSha256 derive(byte[] label) {
        return new HmacSha256(mac().doFinal(label));
    }

    /** This thread's Mac under the key, ready for {@code update} and {@code doFinal} (which resets it). */
    public Mac mac() {
        return macs.get();
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks " + ALGORITHM + ", which every Java platform must have", e);
        }
    }

    @Override
    public String toString() {
        return "HmacSha256[key hidden]";
    }
}
