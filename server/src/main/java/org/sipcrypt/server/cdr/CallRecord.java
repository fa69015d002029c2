package org.sipcrypt.server.cdr;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One finished call through the proxy: an INVITE that created (or failed to create) a dialog.
 * Threading: immutable.
 *
 * @param callId       the INVITE's Call-ID
 * @param start        when the proxy took the INVITE (after any digest authentication)
 * @param answer       when a 2xx was relayed upstream; null when unanswered
 * @param end          when the BYE was relayed or the failure response sent; null when the end was never seen
 * @param caller       the From URI of the INVITE
 * @param callee       the To URI of the INVITE
 * @param user         the digest user name that authenticated the INVITE, or null
 * @param inTransport  the caller's leg: udp, tcp, tls, ws or wss
 * @param inCipher     the TLS cipher suite of the caller's leg, or null (not TLS, or not known)
 * @param outTransport the answering callee's leg, or null when unanswered
 * @param outCipher    the TLS cipher suite of the callee's leg, or null (not TLS, not answered, or not known)
 * @param status       the final status sent upstream for the INVITE, 0 when none was seen
 * @param endedBy      who ended the call
 */
public record CallRecord(String callId, Instant start, Instant answer, Instant end, String caller, String callee,
                         String user, String inTransport, String inCipher, String outTransport, String outCipher,
                         int status, EndedBy endedBy) {

    /**
     * Who ended a call.
     * Threading: immutable.
     */
    public enum EndedBy {
        /** The caller: its BYE, or its CANCEL of an unanswered call. */
        CALLER,
        /** The callee: its BYE, or a failure response of the called side. */
        CALLEE,
        /** No answer in time: the proxy answered 408 itself (Timer C, or no response on any branch). */
        TIMEOUT,
        /** The proxy refused the call itself (no such user, no binding, no next hop reachable). */
        NONE,
        /** The operator, through the management API: the proxy sent both parties a BYE. */
        ADMIN,
        /** The end was never seen: the dialog was forgotten (its age or the bound on dialogs) or recording was full. */
        UNKNOWN;

        /** The name in records: lower case. */
        public String text() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public CallRecord {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(endedBy, "endedBy");
    }

    /** How long the call was connected: end minus answer; null unless both are known. */
    public Duration duration() {
        return answer == null || end == null ? null : Duration.between(answer, end);
    }
}
