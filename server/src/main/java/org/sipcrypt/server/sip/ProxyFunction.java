package org.sipcrypt.server.sip;

import javax.sip.ClientTransaction;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * The stateful proxy as the {@link SipDispatcher} sees it (RFC 3261 §16): besides requests and
 * CANCEL, it relays the ACKs for 2xx and gets the responses and timeouts of the client
 * transactions it opened.
 * Threading: implementations are thread-safe and never block; called on SIP worker lanes
 * (timeouts on the stack's timer thread).
 */
public interface ProxyFunction extends SipFunction {

    /**
     * A request other than ACK and CANCEL, as {@link #onRequest(Request, javax.sip.ServerTransaction)},
     * from a client that authenticated as {@code identity} (RFC 3261 §22.3), or null when it did not.
     */
    void onRequest(Request request, javax.sip.ServerTransaction st, String identity);

    /** An ACK for a 2xx, relayed along its route (RFC 3261 §16.6 applies to it as to any request). */
    void onAck(Request ack);

    /** A response to one of the proxy's client transactions (RFC 3261 §16.7). */
    void onResponse(Response response, ClientTransaction ct);

    /** A client transaction of the proxy's that timed out (RFC 3261 §16.8). */
    void onTimeout(ClientTransaction ct);
}
