package org.sipcrypt.server.sip;

import gov.nist.core.CommonLogger;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sip.PeerUnavailableException;
import org.sipcrypt.server.config.ServerConfig;

/**
 * Builds the JAIN-SIP stack with the properties a stateful proxy needs: no automatic dialogs, a
 * re-entrant listener (called on the thread that processed the message: a SIP worker lane), no
 * stack-level loop detection (the proxy does RFC 3261 §16.3 itself), SLF4J logging, and the
 * message-processor factory of the chosen transport implementation.
 * Threading: stateless; call from the start-up thread.
 */
public final class SipStackBuilder {

    /** The factory JAIN-SIP instantiates for the Netty transport. */
    public static final String NETTY_FACTORY = "org.sipcrypt.server.transport.netty.NettyMessageProcessorFactory";
    /** JAIN-SIP's own NIO transport, kept for side-by-side measurements. */
    public static final String JAIN_NIO_FACTORY = "gov.nist.javax.sip.stack.NioMessageProcessorFactory";
    /** JAIN-SIP's default transport (a thread per socket), kept for side-by-side measurements. */
    public static final String JAIN_OIO_FACTORY = "gov.nist.javax.sip.stack.OIOMessageProcessorFactory";

    private static final AtomicInteger instances = new AtomicInteger();

    static {
        // JAIN-SIP's static loggers resolve through this field before any stack exists
        CommonLogger.legacyLogger = new Slf4jStackLogger();
        CommonLogger.useLegacyLogger = true;
    }

    private SipStackBuilder() {
    }

    /** The stack properties for a configuration. */
    public static Properties properties(ServerConfig config) {
        Properties p = new Properties();
        p.setProperty("javax.sip.STACK_NAME", "sipcrypt-" + instances.incrementAndGet());
        p.setProperty("javax.sip.AUTOMATIC_DIALOG_SUPPORT", "off");
        p.setProperty("gov.nist.javax.sip.REENTRANT_LISTENER", "true");
        // a NOTIFY outside a dialog gets a server transaction like any request (RFC 3261 §16: a proxy
        // routes methods it need not understand); without this the stack refuses it one, unanswered
        p.setProperty("gov.nist.javax.sip.DELIVER_UNSOLICITED_NOTIFY", "true");
        p.setProperty("gov.nist.javax.sip.STACK_LOGGER", Slf4jStackLogger.class.getName());
        p.setProperty("gov.nist.javax.sip.SERVER_LOGGER", Slf4jServerLogger.class.getName());
        p.setProperty("gov.nist.javax.sip.LOG_MESSAGE_CONTENT", "false");
        p.setProperty("gov.nist.javax.sip.SERVER_LOOP_DETECTION", "false");
        p.setProperty("gov.nist.javax.sip.AUTOMATIC_DIALOG_ERROR_HANDLING", "false");
        p.setProperty("gov.nist.javax.sip.CACHE_CLIENT_CONNECTIONS", "true");
        p.setProperty("gov.nist.javax.sip.CACHE_SERVER_CONNECTIONS", "true");
        p.setProperty("gov.nist.javax.sip.MAX_MESSAGE_SIZE", Integer.toString(config.maxMessageBytes()));
        p.setProperty("gov.nist.javax.sip.MAX_SERVER_TRANSACTIONS", "200000");
        p.setProperty("gov.nist.javax.sip.MAX_CLIENT_TRANSACTIONS", "200000");
        // memory per call: a transaction that completes drops its parsed messages (the server keeps
        // no reference to them past the response it forwards), and one that terminates leaves the
        // stack's table at once instead of lingering 8 s
        p.setProperty("gov.nist.javax.sip.RELEASE_REFERENCES_STRATEGY", "Aggressive");
        p.setProperty("gov.nist.javax.sip.LINGER_TIMER", "0");
        p.setProperty("gov.nist.javax.sip.TIMER_CLASS_NAME", WheelSipTimer.class.getName());
        p.setProperty("gov.nist.javax.sip.MESSAGE_PROCESSOR_FACTORY", switch (config.transportImpl()) {
            case NETTY -> NETTY_FACTORY;
            case JAIN_NIO -> JAIN_NIO_FACTORY;
            case JAIN_OIO -> JAIN_OIO_FACTORY;
        });
        // used by the jain-nio transport only
        p.setProperty("gov.nist.javax.sip.THREAD_POOL_SIZE", Integer.toString(config.sipWorkers()));
        p.setProperty("gov.nist.javax.sip.TCP_POST_PARSING_THREAD_POOL_SIZE", Integer.toString(config.sipWorkers()));
        p.setProperty("gov.nist.javax.sip.NIO_MAX_SOCKET_IDLE_TIME", Long.toString(config.tcpIdleTimeout().toMillis()));
        p.setProperty("gov.nist.javax.sip.MAX_CONNECTIONS", Integer.toString(config.tcpMaxConnections()));
        return p;
    }

    /** Creates the stack. */
    public static SipcryptSipStack build(ServerConfig config) throws PeerUnavailableException {
        return new SipcryptSipStack(properties(config));
    }
}
