package org.sipcrypt.server.transport;

/**
 * What the SIP layer tells the transport about calls: a call's dialog has ended, so the
 * connections opened for it under the {@code per-call} pattern can be closed.
 * Threading: implementations are thread-safe and never block.
 */
public interface CallConnections {

    /** Closes the per-call connections of this Call-ID, if any; shared connections stay open. */
    void releaseCall(String callId);

    /** For transports without per-call connections. */
    CallConnections NONE = callId -> { };
}
