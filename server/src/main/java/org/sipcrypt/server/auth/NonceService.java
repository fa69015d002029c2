package org.sipcrypt.server.auth;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;

/**
 * Stateless nonces (RFC 7616 §3.3 suggests this construction): a nonce is the issue time, 8 random
 * bytes (so two challenges in the same millisecond never share a nonce, whose counts the replay
 * guard tracks) and an HMAC-SHA256 over both (and, optionally, the client's IP address) under a
 * server secret, so
 * checking one needs no table and no load can exhaust a nonce pool. Servers sharing the secret
 * accept each other's nonces. A nonce with a valid MAC older than the lifetime is {@code STALE}
 * (answered with a fresh challenge and {@code stale=true}); any other nonce is {@code INVALID}.
 * Threading: thread-safe; never blocks.
 */
public final class NonceService {

    /** How far in the future an issue time may lie: clock skew between servers sharing a secret. */
    static final Duration MAX_CLOCK_SKEW = Duration.ofSeconds(30);

    private static final int TIME_BYTES = Long.BYTES;
    private static final int RANDOM_BYTES = 8;
    private static final int MAC_BYTES = 16;
    private static final int NONCE_BYTES = TIME_BYTES + RANDOM_BYTES + MAC_BYTES;
    /** Length of a nonce: 32 bytes in unpadded base64url. */
    static final int NONCE_LENGTH = 43;
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    /** What a nonce turned out to be. */
    public enum Status { VALID, STALE, INVALID }

    /**
     * The verdict on one nonce.
     * Threading: immutable.
     *
     * @param status         valid, stale or invalid
     * @param issuedAtMillis when the nonce was made (epoch milliseconds); 0 when invalid
     */
    public record Check(Status status, long issuedAtMillis) {
        static final Check INVALID = new Check(Status.INVALID, 0);
    }

    private final HmacSha256 hmac;
    private final Clock clock;
    private final Duration lifetime;
    private final boolean bindAddress;

    /**
     * @param secret      the HMAC key; at least 16 bytes
     * @param lifetime    how long a nonce is accepted
     * @param bindAddress whether a nonce is valid only from the address it was issued to
     */
    public NonceService(byte[] secret, Clock clock, Duration lifetime, boolean bindAddress) {
        Objects.requireNonNull(secret, "secret");
        if (secret.length < 16) {
            throw new IllegalArgumentException("nonce secret must have at least 16 bytes, not " + secret.length);
        }
        if (lifetime.isNegative() || lifetime.isZero()) {
            throw new IllegalArgumentException("nonce lifetime must be positive: " + lifetime);
        }
        this.hmac = new HmacSha256(secret);
        this.clock = Objects.requireNonNull(clock, "clock");
        this.lifetime = lifetime;
        this.bindAddress = bindAddress;
    }

    /** How long a nonce is accepted. */
    public Duration lifetime() {
        return lifetime;
    }

    /** A new nonce for a client at {@code clientAddress} (its IP address as text). */
    public String create(String clientAddress) {
        byte[] raw = new byte[NONCE_BYTES];
        ByteBuffer.wrap(raw).putLong(clock.millis()).putLong(java.util.concurrent.ThreadLocalRandom.current().nextLong());
        System.arraycopy(mac(raw, clientAddress), 0, raw, TIME_BYTES + RANDOM_BYTES, MAC_BYTES);
        return ENCODER.encodeToString(raw);
    }

    /** Whether {@code nonce} was made by a server with our secret, for this client, recently enough. */
    public Check check(String nonce, String clientAddress) {
        if (nonce == null || nonce.length() != NONCE_LENGTH) {
            return Check.INVALID;
        }
        byte[] raw;
        try {
            raw = DECODER.decode(nonce);
        } catch (IllegalArgumentException e) {
            return Check.INVALID;
        }
        if (raw.length != NONCE_BYTES || !ENCODER.encodeToString(raw).equals(nonce)) {
            // the last character carries two unused bits: only the canonical spelling is ours
            return Check.INVALID;
        }
        long issuedAt = ByteBuffer.wrap(raw).getLong();
        byte[] expected = mac(raw, clientAddress);
        if (!MessageDigest.isEqual(expected, Arrays.copyOfRange(raw, TIME_BYTES + RANDOM_BYTES, raw.length))) {
            return Check.INVALID;
        }
        long now = clock.millis();
        if (issuedAt > now + MAX_CLOCK_SKEW.toMillis()) {
            return Check.INVALID;
        }
        if (now - issuedAt > lifetime.toMillis()) {
            return new Check(Status.STALE, issuedAt);
        }
        return new Check(Status.VALID, issuedAt);
    }

    /** The MAC over a nonce's time and random bytes (the first 16 of {@code raw}) and the address. */
    private byte[] mac(byte[] raw, String clientAddress) {
        Mac mac = hmac.mac();
        mac.update(raw, 0, TIME_BYTES + RANDOM_BYTES);
        if (bindAddress) {
            mac.update((byte) '|');
            mac.update(String.valueOf(clientAddress).getBytes(StandardCharsets.UTF_8));
        }
        return Arrays.copyOf(mac.doFinal(), MAC_BYTES);
    }

    /** Never shows the secret. */
    @Override
    public String toString() {
        return "NonceService[lifetime=" + lifetime + ", bindAddress=" + bindAddress + "]";
    }
}
