package org.sipcrypt.server.transport;

/**
 * What the SIP layer tells the transport about calls, and asks it about connections: a call's
 * dialog has ended, so the connections opened for it under the {@code per-call} pattern can be
 * closed; and whether the connection of a flow a binding or a Record-Route names is still open.
 * Threading: implementations are thread-safe and never block.
 */
public interface CallConnections {

    /** Closes the per-call connections of this Call-ID, if any; shared connections stay open. */
    void releaseCall(String callId);

    /**
     * Whether a message can go over {@code flow} now: for TCP and TLS, its very connection is still
     * open; a UDP flow needs no connection. Transports that record no flows know none open.
     */
    default boolean flowOpen(Flow flow) {
        return false;
    }

    /** For transports without per-call connections. */
    CallConnections NONE = callId -> { };
}
