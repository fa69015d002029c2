package org.sipcrypt.server.location;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Everything one REGISTER asks of the location service, applied atomically
 * (RFC 3261 §10.3 steps 6-8).
 * Threading: immutable.
 *
 * @param aor       canonical address-of-record
 * @param callId    the REGISTER's Call-ID
 * @param cseq      the REGISTER's CSeq number
 * @param removeAll {@code Contact: *} with {@code Expires: 0}: remove every binding
 * @param contacts  the contacts to add, refresh or remove (empty for a query or for removeAll)
 * @param received  where the REGISTER came from, {@code transport:ip:port}
 * @param now       the registrar's clock reading for this request
 * @param flow      the flow the REGISTER came over ({@code transport.Flow}'s text form), or null
 *                  when the transport records none
 * @param path      the Path header values (RFC 3327) stored with every binding this request writes, as
 *                  one comma-separated list, first hop first; null for none
 */
public record RegisterChange(String aor, String callId, long cseq, boolean removeAll,
                             List<ContactChange> contacts, String received, Instant now, String flow, String path) {

    /** A change from a REGISTER whose flow is not known. */
    public RegisterChange(String aor, String callId, long cseq, boolean removeAll, List<ContactChange> contacts,
                          String received, Instant now) {
        this(aor, callId, cseq, removeAll, contacts, received, now, null, null);
    }

    /** A change from a REGISTER without a Path. */
    public RegisterChange(String aor, String callId, long cseq, boolean removeAll, List<ContactChange> contacts,
                          String received, Instant now, String flow) {
        this(aor, callId, cseq, removeAll, contacts, received, now, flow, null);
    }

    /** This change with {@code path} stored with its bindings, and their NAT marks as {@code contacts} say. */
    public RegisterChange withPath(String path, List<ContactChange> contacts) {
        return new RegisterChange(aor, callId, cseq, removeAll, contacts, received, now, flow, path);
    }

    public RegisterChange {
        Objects.requireNonNull(aor, "aor");
        Objects.requireNonNull(callId, "callId");
        contacts = List.copyOf(Objects.requireNonNull(contacts, "contacts"));
        Objects.requireNonNull(received, "received");
        Objects.requireNonNull(now, "now");
        if (removeAll && !contacts.isEmpty()) {
            throw new IllegalArgumentException("removeAll with contacts");
        }
    }
}
