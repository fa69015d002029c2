package org.sipcrypt.server.transport;

import javax.sip.message.Request;

/**
 * Hears of requests the stack sent that never left: a connection is dialled while the sender goes on
 * (the SIP lane does not wait for a TCP connect or a TLS handshake), so when the connect or the
 * handshake then fails, the requests that waited for it are reported here instead of as an error the
 * sender sees. A proxy treats such a request as one answered 503 (RFC 3261 §16.9).
 * Threading: implementations are thread-safe and never block; called on event loops.
 */
public interface RequestsNotSent {

    /**
     * {@code request} was not sent.
     *
     * @param request the request as the stack sent it (the client transaction's own)
     * @param cause   why: the connect's or the handshake's failure, or the connection closing first
     */
    void notSent(Request request, Throwable cause);
}
