package org.sipcrypt.server.tls;

import java.time.Instant;
import java.util.Objects;

/**
 * What an OCSP response (RFC 6960) says of one certificate once checked: {@code GOOD}, {@code REVOKED}
 * or {@code UNKNOWN} as the responder signed it, or {@code ERROR} when there is no answer to trust
 * (no responder, a failed or late fetch, a response that is malformed, unsigned by the issuer or its
 * delegate, not about this certificate, or outside its validity window).
 * Threading: immutable.
 *
 * @param status     the answer; {@link PeerRevocation.Result#ERROR} when nothing trustworthy was said
 * @param thisUpdate when the responder last knew the status to be so; null with {@code ERROR}
 * @param nextUpdate when newer information will be there; null when the response gave none, or {@code ERROR}
 * @param detail     why, in a log line: the revocation time and reason, or what was wrong
 * @param fetch      how the fetch that gave it is counted ({@code tls.ocsp.fetches{result}})
 */
public record OcspAnswer(PeerRevocation.Result status, Instant thisUpdate, Instant nextUpdate, String detail,
                         Fetch fetch) {

    /** How a fetch ended: the tag of {@code tls.ocsp.fetches{result}}. */
    public enum Fetch {
        /** A verified response saying good. */
        GOOD,
        /** A verified response saying revoked. */
        REVOKED,
        /** A verified response saying the responder does not know the certificate. */
        UNKNOWN,
        /** A response that failed its checks (format, signature, signer, certificate, time window, nonce). */
        INVALID,
        /** No response: no responder named, connection refused, HTTP status other than 200, too long. */
        FAILED,
        /** No response within {@code tls.ocspTimeout}. */
        TIMEOUT;

        /** The metric tag. */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public OcspAnswer {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(fetch, "fetch");
    }

    /** No answer to trust, for {@code why}. */
    public static OcspAnswer error(Fetch fetch, String why) {
        return new OcspAnswer(PeerRevocation.Result.ERROR, null, null, why, fetch);
    }

    @Override
    public String toString() {
        return status.tag() + " (" + detail + ")";
    }
}
