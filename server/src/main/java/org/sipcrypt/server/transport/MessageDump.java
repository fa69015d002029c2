package org.sipcrypt.server.transport;

import java.util.regex.Pattern;

/**
 * The text of a SIP message as the TRACE dumps on logger {@code sipcrypt.messages} show it:
 * whole, except the credentials of {@code Authorization} and {@code Proxy-Authorization}
 * (RFC 3261 §22), of which only the scheme is kept.
 * Threading: immutable (static methods only).
 */
public final class MessageDump {

    /** The logger the dumps go to, at TRACE. */
    public static final String LOGGER = "sipcrypt.messages";

    private static final Pattern CREDENTIALS =
            Pattern.compile("(?im)^((?:proxy-)?authorization[ \\t]*:[ \\t]*\\S+)[^\\r\\n]*");

    private MessageDump() {
    }

    /** The message text with credentials masked. */
    public static String text(String message) {
        return CREDENTIALS.matcher(message).replaceAll("$1 <masked>");
    }
}
