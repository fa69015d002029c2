package org.sipcrypt.server.sip.proxy;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.sipcrypt.server.transport.Flow;

/**
 * What this proxy keeps of one call it record-routed and saw established: enough to list it and to
 * end it with a BYE to each side built as that side's peer would (RFC 3261 §12.2.1.1: Request-URI
 * the remote target, Route the route set, From and To the dialog's, CSeq above the last one seen).
 * Taken from the INVITE and the 2xx that established the dialog; a 2xx to a re-INVITE raises the
 * CSeq of the side that sent it. Other in-dialog requests (INFO, UPDATE, OPTIONS) are not followed,
 * so their CSeq is not seen.
 * Threading: immutable.
 *
 * @param callId        the dialog's Call-ID
 * @param from          the INVITE's From header value, with the caller's tag
 * @param to            the 2xx's To header value, with the callee's tag
 * @param callerTag     the caller's tag (From)
 * @param calleeTag     the callee's tag (To)
 * @param caller        the INVITE's From URI
 * @param callee        the INVITE's To URI
 * @param callerContact the INVITE's Contact value (the caller's remote target), or null when it had none
 * @param calleeContact the 2xx's Contact value (the callee's remote target), or null when it had none
 * @param recordRoute   the 2xx's Record-Route header values, top first, this proxy's own entries included
 * @param callerCSeq    the highest CSeq number seen from the caller in the dialog
 * @param calleeCSeq    the highest CSeq number seen from the callee in the dialog, 0 when none
 * @param start         when the proxy took the INVITE
 * @param answer        when the 2xx went upstream
 * @param inTransport   the caller's leg: udp, tcp, tls, ws or wss
 * @param outTransport  the callee's leg, or null when not known
 * @param callerFlow    the flow the INVITE came over (the caller's, or the previous hop's), or null
 */
public record EstablishedCall(String callId, String from, String to, String callerTag, String calleeTag,
                              String caller, String callee,
                              String callerContact, String calleeContact, List<String> recordRoute,
                              long callerCSeq, long calleeCSeq, Instant start, Instant answer,
                              String inTransport, String outTransport, Flow callerFlow) {

    public EstablishedCall {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(callerTag, "callerTag");
        Objects.requireNonNull(calleeTag, "calleeTag");
        recordRoute = List.copyOf(Objects.requireNonNull(recordRoute, "recordRoute"));
    }

    /** This call after a request of CSeq {@code number} from the side whose tag is {@code fromTag}. */
    EstablishedCall seen(String fromTag, long number) {
        if (callerTag.equals(fromTag) && number > callerCSeq) {
            return new EstablishedCall(callId, from, to, callerTag, calleeTag, caller, callee, callerContact, calleeContact,
                    recordRoute, number, calleeCSeq, start, answer, inTransport, outTransport, callerFlow);
        }
        if (calleeTag.equals(fromTag) && number > calleeCSeq) {
            return new EstablishedCall(callId, from, to, callerTag, calleeTag, caller, callee, callerContact, calleeContact,
                    recordRoute, callerCSeq, number, start, answer, inTransport, outTransport, callerFlow);
        }
        return this;
    }
}
