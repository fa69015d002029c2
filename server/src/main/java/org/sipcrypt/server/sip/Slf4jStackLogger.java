package org.sipcrypt.server.sip;

import gov.nist.core.LogLevels;
import gov.nist.core.StackLogger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends JAIN-SIP's own logging to SLF4J (logger {@code gov.nist.javax.sip}) instead of log4j 1.x.
 * JAIN-SIP reports routine conditions as errors, so its levels are shifted down one step: its
 * fatal is our ERROR, its error and warning our WARN, its info our DEBUG, its debug our TRACE.
 * JAIN-SIP's transports ask it whether to feed the message dumps ({@link Slf4jServerLogger}).
 * Threading: thread-safe; never blocks beyond the logging backend.
 */
public final class Slf4jStackLogger extends Slf4jStackLogging implements StackLogger {

    private static final Logger log = LoggerFactory.getLogger("gov.nist.javax.sip");

    /** Called by JAIN-SIP through reflection (stack property {@code gov.nist.javax.sip.STACK_LOGGER}). */
    public Slf4jStackLogger() {
    }

    @Override
    public void logStackTrace() {
        if (log.isTraceEnabled()) {
            log.trace("stack trace", new Throwable("stack trace"));
        }
    }

    @Override
    public void logStackTrace(int traceLevel) {
        if (isLoggingEnabled(traceLevel)) {
            logStackTrace();
        }
    }

    @Override
    public int getLineCount() {
        return 0;
    }

    @Override
    public void logException(Throwable ex) {
        log.warn("stack exception: {}", ex.toString(), ex);
    }

    @Override
    public void logDebug(String message) {
        log.trace(message);
    }

    @Override
    public void logDebug(String message, Exception ex) {
        log.trace(message, ex);
    }

    @Override
    public void logTrace(String message) {
        log.trace(message);
    }

    @Override
    public void logFatalError(String message) {
        log.error(message);
    }

    @Override
    public void logError(String message) {
        log.warn(message);
    }

    @Override
    public boolean isLoggingEnabled() {
        return log.isWarnEnabled();
    }

    @Override
    public boolean isLoggingEnabled(int logLevel) {
        if (logLevel <= LogLevels.TRACE_NONE) {
            return false;
        }
        if (logLevel <= LogLevels.TRACE_FATAL) {
            return log.isErrorEnabled();
        }
        if (logLevel <= LogLevels.TRACE_WARN) {
            return log.isWarnEnabled();
        }
        if (logLevel <= LogLevels.TRACE_INFO) {
            // TRACE_MESSAGES is TRACE_INFO: JAIN-SIP's own transports dump messages only when it is on
            return log.isDebugEnabled() || logLevel == LogLevels.TRACE_MESSAGES && messages.isTraceEnabled();
        }
        return log.isTraceEnabled();
    }

    @Override
    public void logError(String message, Exception ex) {
        log.warn(message, ex);
    }

    @Override
    public void logWarning(String message) {
        log.warn(message);
    }

    @Override
    public void logInfo(String message) {
        log.debug(message);
    }

    @Override
    public void disableLogging() {
        // levels are SLF4J's: nothing to switch here
    }

    @Override
    public void enableLogging() {
        // levels are SLF4J's: nothing to switch here
    }

    @Override
    public void setBuildTimeStamp(String buildTimeStamp) {
        log.debug("JAIN-SIP build {}", buildTimeStamp);
    }

    @Override
    public String getLoggerName() {
        return log.getName();
    }
}
