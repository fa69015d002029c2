package org.sipcrypt.server.sip;

import java.util.Properties;
import org.sipcrypt.server.transport.MessageDump;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What JAIN-SIP's two logging seams ({@link Slf4jStackLogger}, {@link Slf4jServerLogger}) share:
 * the message dumps' logger, and levels and appenders configured by logback, not by stack properties.
 * Threading: thread-safe; never blocks beyond the logging backend.
 */
abstract class Slf4jStackLogging {

    /** The message dumps' logger ({@link MessageDump#LOGGER}), fed at TRACE. */
    static final Logger messages = LoggerFactory.getLogger(MessageDump.LOGGER);

    /** Both seams' {@code setStackProperties}: configuration comes from logback, not from stack properties. */
    public void setStackProperties(Properties properties) {
        // nothing to take from the stack's properties
    }
}
