package org.sipcrypt.server.transport.netty;

import java.util.Locale;

/**
 * Why a byte stream or datagram could not be framed into a SIP message. The lower-case name is the
 * {@code reason} tag of {@code transport.connections.closed} and {@code sip.datagrams.dropped}.
 * Threading: immutable.
 */
enum FramingError {
    /** No Content-Length header in a message on a stream (RFC 3261 §18.3 makes it mandatory there). */
    MISSING_CONTENT_LENGTH,
    /** A Content-Length that is not a non-negative number, or two that disagree. */
    BAD_CONTENT_LENGTH,
    /** Headers plus body beyond the configured maximum message size. */
    OVERSIZE;

    /** The metric tag. */
    String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
