package org.sipcrypt.server.location;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One registered contact of an address-of-record (RFC 3261 §10.3): where requests for the AOR
 * may be sent until {@code expiresAt}.
 * Threading: immutable.
 *
 * @param aor        canonical address-of-record, {@code sip:user@domain} (lower-case domain, no port)
 * @param contactKey the contact URI in canonical form, used to compare contacts (RFC 3261 §19.1.4)
 * @param contact    the contact URI as the user agent sent it, used to reach it
 * @param expiresAt  when the binding lapses
 * @param callId     Call-ID of the REGISTER that last wrote the binding
 * @param cseq       CSeq number of that REGISTER
 * @param q          the contact's q value, or {@code -1} when it had none
 * @param received   where that REGISTER came from, {@code transport:ip:port}
 * @param flow       the flow that REGISTER came over ({@code transport.Flow}'s text form), or null
 * @param nat        whether the registrar detected a NAT between the phone and itself
 * @param instance   the contact's {@code +sip.instance} (RFC 5626 §4.1), or null
 * @param regId      the contact's {@code reg-id} (RFC 5626 §4.2), or 0: an outbound binding when above 0
 * @param path       the REGISTER's Path header values (RFC 3327 §5.3) as one comma-separated list, first
 *                   hop first, when the registrar stored them; else null. A binding with a Path is
 *                   reached through it, not at its Contact or over its flow
 */
public record Binding(String aor, String contactKey, String contact, Instant expiresAt,
                      String callId, long cseq, float q, String received, String flow, boolean nat,
                      String instance, int regId, String path) {

    /** A binding without a flow. */
    public Binding(String aor, String contactKey, String contact, Instant expiresAt, String callId, long cseq,
                   float q, String received) {
        this(aor, contactKey, contact, expiresAt, callId, cseq, q, received, null, false, null, 0, null);
    }

    /** A binding without a Path. */
    public Binding(String aor, String contactKey, String contact, Instant expiresAt, String callId, long cseq,
                   float q, String received, String flow, boolean nat, String instance, int regId) {
        this(aor, contactKey, contact, expiresAt, callId, cseq, q, received, flow, nat, instance, regId, null);
    }

    /** Whether the phone registered it with RFC 5626 outbound (an instance and a reg-id). */
    public boolean outbound() {
        return instance != null && regId > 0;
    }

    public Binding {
        Objects.requireNonNull(aor, "aor");
        Objects.requireNonNull(contactKey, "contactKey");
        Objects.requireNonNull(contact, "contact");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(received, "received");
    }

    /** Whole seconds left until the binding lapses at {@code now}, never negative. */
    public long secondsLeft(Instant now) {
        long s = Duration.between(now, expiresAt).toMillis();
        return s <= 0 ? 0 : (s + 999) / 1000;
    }
}
