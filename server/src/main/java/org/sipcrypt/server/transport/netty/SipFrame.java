package org.sipcrypt.server.transport.netty;

/**
 * What the framers hand up the pipeline: one whole SIP message, a keep-alive, or a framing error.
 * Framers report failure as a value rather than throwing through the pipeline (STYLE.md).
 * Threading: immutable.
 */
sealed interface SipFrame {

    /** One complete SIP message, copied out of the Netty buffers. */
    record Message(byte[] bytes) implements SipFrame {
    }

    /** A CRLF keep-alive (RFC 5626 §3.5.1): {@code ping} (double CRLF) or {@code pong} (single CRLF). */
    record KeepAlive(boolean ping) implements SipFrame {
    }

    /** The stream cannot be framed any further; the connection must close. */
    record Error(FramingError reason, String detail) implements SipFrame {
    }
}
