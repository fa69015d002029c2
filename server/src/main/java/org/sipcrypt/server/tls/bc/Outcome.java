package org.sipcrypt.server.tls.bc;

import java.security.cert.X509Certificate;
import org.bouncycastle.tls.TlsContext;

/**
 * What a bc TLS peer learnt during its handshake: whether it completed, whether it resumed a
 * session, the key-exchange group (where known), the peer's certificate chain, and the last alert sent or received with its reason.
 * Threading: confined to the connection's event loop.
 */
final class Outcome {
    boolean complete;
    boolean resumed;
    /** {@link #group}: the engine did not say which group the key exchange used. */
    static final int UNKNOWN_GROUP = -1;
    /** {@link #group}: no key-exchange group was used (RSA key exchange, a resumed TLS 1.2 session). */
    static final int NO_GROUP = -2;

    int suite = -1;
    /** The key-exchange group's IANA code, or {@link #UNKNOWN_GROUP} or {@link #NO_GROUP}. */
    int group = UNKNOWN_GROUP;
    X509Certificate[] peerChain;
    short alert = -1;
    boolean alertSent;
    String alertMessage;
    boolean renegotiationRefused;

    /** The handshake completed: notes whether it resumed a session, and the suite agreed. */
    void completed(TlsContext context) {
        complete = true;
        resumed = context.getSecurityParametersConnection().isResumedSession();
        suite = context.getSecurityParametersConnection().getCipherSuite();
    }

    /** An alert this side sent, with BC's message and the cause's, when there is one. */
    void raised(short description, String message, Throwable cause) {
        alert(description, true, cause == null || cause.getMessage() == null ? message
                : message == null ? cause.getMessage() : message + ": " + cause.getMessage());
    }

    /** An alert the peer sent. */
    void received(short description) {
        alert(description, false, null);
    }

    private void alert(short description, boolean sent, String message) {
        if (sent && description == org.bouncycastle.tls.AlertDescription.no_renegotiation) {
            renegotiationRefused = true;
        }
        alert = description;
        alertSent = sent;
        alertMessage = message;
    }
}
