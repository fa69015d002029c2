package org.sipcrypt.server.sip;

import javax.sip.ServerTransaction;
import javax.sip.message.Request;

/**
 * A SIP function the {@link SipDispatcher} hands requests to once they are checked and, where
 * required, authenticated: the stateful proxy (RFC 3261 §16) or the redirect server (§8.3), as
 * the mode says. The functions live in subpackages that depend on this one, never the other way.
 * Threading: implementations are thread-safe and never block; called on SIP worker lanes.
 */
public interface SipFunction {

    /** A request other than ACK and CANCEL, with its server transaction. */
    void onRequest(Request request, ServerTransaction st);

    /** A CANCEL, with its own server transaction (RFC 3261 §9.2). */
    void onCancel(Request cancel, ServerTransaction st);
}
