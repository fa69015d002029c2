package org.sipcrypt.server.sip;

import gov.nist.core.ServerLogger;
import gov.nist.javax.sip.message.SIPMessage;
import javax.sip.SipStack;
import org.sipcrypt.server.transport.MessageDump;

/**
 * JAIN-SIP's message log, as TRACE-level message dumps on logger {@code sipcrypt.messages}
 * rather than a file of the stack's own.
 * Threading: thread-safe; never blocks beyond the logging backend.
 */
public final class Slf4jServerLogger extends Slf4jStackLogging implements ServerLogger {

    /** Called by JAIN-SIP through reflection (stack property {@code gov.nist.javax.sip.SERVER_LOGGER}). */
    public Slf4jServerLogger() {
    }

    @Override
    public void closeLogFile() {
        // nothing is opened
    }

    @Override
    public void logMessage(SIPMessage message, String from, String to, boolean sender, long time) {
        if (messages.isTraceEnabled()) {
            messages.trace("{} {} -> {}\n{}", sender ? "sent" : "received", from, to, MessageDump.text(message.toString()));
        }
    }

    @Override
    public void logMessage(SIPMessage message, String from, String to, String status, boolean sender, long time) {
        logMessage(message, from, to, sender, time);
    }

    @Override
    public void logMessage(SIPMessage message, String from, String to, String status, boolean sender) {
        logMessage(message, from, to, sender, 0);
    }

    @Override
    public void logException(Exception ex) {
        messages.debug("stack exception", ex);
    }

    @Override
    public void setSipStack(SipStack stack) {
        // not needed
    }
}
