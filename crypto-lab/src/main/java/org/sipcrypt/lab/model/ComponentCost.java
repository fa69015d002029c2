package org.sipcrypt.lab.model;

import java.util.Objects;

/**
 * The server CPU time per call one component of SIP over TLS costs, as fitted by {@link CostModel}
 * from differences between scenarios, with the differences it was computed from.
 * Threading: immutable.
 *
 * @param kind             which component
 * @param cipher           the cipher it belongs to, or null for a component that does not depend on it
 * @param cpuMicrosPerCall server CPU time per call, µs (may be negative when measurement noise exceeds
 *                         a small component: reported as fitted, never clamped)
 * @param derivation       how it was computed, e.g. {@code cpu(chain, aes) − cpu(chain, tcp)}
 */
public record ComponentCost(Kind kind, String cipher, double cpuMicrosPerCall, String derivation) {

    public ComponentCost {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(derivation, "derivation");
        if (kind.perCipher() != (cipher != null)) {
            throw new IllegalArgumentException(kind + (kind.perCipher() ? " needs a cipher" : " takes no cipher"));
        }
    }

    /**
     * The components the model knows, with the scenario difference each is fitted from.
     * Threading: immutable.
     */
    public enum Kind {
        /** Everything a call costs over UDP: cpu(chain, udp). */
        UDP_BASE("UDP base", false),
        /** What persistent TCP adds to UDP: cpu(chain, tcp) − cpu(chain, udp). */
        TCP_INCREMENT("TCP increment", false),
        /** TLS record protection over persistent connections: cpu(chain, c) − cpu(chain, tcp). */
        BULK("TLS bulk cipher", true),
        /** Accepting a TCP connection per call: cpu(outbound, tcp) − cpu(chain, tcp). */
        SERVER_CONNECT("server TCP accept", false),
        /** A server-side TLS handshake per call, beyond the TCP accept. */
        SERVER_HANDSHAKE("server TLS handshake", true),
        /** Opening a TCP connection per call: cpu(inbound, tcp) − cpu(chain, tcp). */
        CLIENT_CONNECT("client TCP connect", false),
        /** A client-side TLS handshake per call, beyond the TCP connect. */
        CLIENT_HANDSHAKE("client TLS handshake", true),
        /** Verifying client certificates: cpu(outbound-mutual, c) − cpu(outbound, c). */
        MUTUAL_INCREMENT("mutual authentication", true),
        /** What full handshakes cost over resumed ones: cpu(outbound-no-reuse, c) − cpu(outbound, c). */
        REUSE_SAVING("session reuse saving", true),
        /** Digest authentication of each call: cpu(chain-auth, x) − cpu(chain, x), mean over x. */
        DIGEST_AUTH("digest authentication", false);

        private final String label;
        private final boolean perCipher;

        Kind(String label, boolean perCipher) {
            this.label = label;
            this.perCipher = perCipher;
        }

        /** The name in reports. */
        public String label() {
            return label;
        }

        /** Whether there is one value per cipher. */
        public boolean perCipher() {
            return perCipher;
        }
    }
}
