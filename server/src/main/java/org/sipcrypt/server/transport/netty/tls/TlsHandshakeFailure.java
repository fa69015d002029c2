package org.sipcrypt.server.transport.netty.tls;

import javax.net.ssl.SSLHandshakeException;

/**
 * A failed handshake on the bc engine, with the reason already classified (the metric tag) and the
 * alert sent or received in its message.
 * Threading: immutable.
 */
final class TlsHandshakeFailure extends SSLHandshakeException {

    private final String reason;

    TlsHandshakeFailure(String reason, String message, Throwable cause) {
        super(message);
        this.reason = reason;
        initCause(cause);
    }

    /** The tag of {@code tls.handshakes.failed{reason}}. */
    String reason() {
        return reason;
    }
}
