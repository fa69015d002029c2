package org.sipcrypt.server.sip;

import javax.sip.ServerTransaction;
import javax.sip.message.Request;

/**
 * The registrar as the {@link SipDispatcher} sees it: a REGISTER for our domain, checked and,
 * where required, authenticated (RFC 3261 §10.3).
 * Threading: implementations are thread-safe and never block; called on SIP worker lanes.
 */
@FunctionalInterface
public interface RegistrarFunction {

    /** Handles a REGISTER with its server transaction and answers it. */
    void register(Request request, ServerTransaction st);
}
