package org.sipcrypt.server.sip;

import gov.nist.javax.sip.EventScanner;
import gov.nist.javax.sip.EventWrapper;
import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.stack.HopImpl;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.SIPServerTransaction;
import gov.nist.javax.sip.stack.ServerResponseInterface;
import java.util.Collection;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import javax.sip.IOExceptionEvent;
import javax.sip.PeerUnavailableException;
import javax.sip.SipException;
import javax.sip.address.Hop;
import javax.sip.address.Router;
import javax.sip.message.Request;
import org.sipcrypt.server.transport.AddressText;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.transport.TopVia;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JAIN-SIP stack with one lookup made cheaper: a response whose branch carries the RFC 3261
 * magic cookie and matches no client transaction (a retransmitted 2xx, a late response) goes
 * straight to the application. JAIN-SIP would first compare it with every client transaction in
 * its table, a scan meant for RFC 2543 peers that can never match such a branch and that
 * costs more the busier the proxy is (RFC 3261 §17.1.3 matching is by branch alone).
 *
 * <p>{@link #stop} also ends JAIN-SIP's {@code EventScannerThread}, which the stack's own stop
 * leaves waiting for an event forever: in a servlet container that thread would outlive the
 * undeployed web application; and on the Netty transport it skips the 1 s the stack's own stop
 * sleeps for threads that stack does not run ({@link WheelSipTimer#endStackSleepOnStop}).
 * {@link #serverTransactions} lets the age bound ({@link TransactionAgeLimit}) see every server
 * transaction in the table.
 * Threading: as JAIN-SIP's stack: thread-safe.
 */
public final class SipcryptSipStack extends SipStackImpl {

    private static final Logger log = LoggerFactory.getLogger(SipcryptSipStack.class);
    private static final String EVENT_SCANNER_THREAD = "EventScannerThread";

    /** The thread JAIN-SIP started for this stack's event scanner, when it could be told apart. */
    private final Thread eventScannerThread;
    /** Whether JAIN-SIP runs no socket thread of its own: the Netty transport's message processors. */
    private final boolean nettyTransport;
    /** Whether the last {@link #stop} ended JAIN-SIP's fixed sleep at once. */
    private volatile boolean stopSleepEnded;

    public SipcryptSipStack(Properties properties) throws PeerUnavailableException {
        this(properties, eventScannerThreads());
    }

    private SipcryptSipStack(Properties properties, Set<Thread> before) throws PeerUnavailableException {
        super(properties);
        nettyTransport = SipStackBuilder.NETTY_FACTORY.equals(
                properties.getProperty("gov.nist.javax.sip.MESSAGE_PROCESSOR_FACTORY"));
        Set<Thread> started = eventScannerThreads();
        started.removeAll(before);
        eventScannerThread = started.size() == 1 ? started.iterator().next() : null;
    }

    private static Set<Thread> eventScannerThreads() {
        Set<Thread> out = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (EVENT_SCANNER_THREAD.equals(t.getName())) {
                out.add(t);
            }
        }
        return out;
    }

    /**
     * Stops the stack, on the Netty transport without JAIN-SIP's fixed 1 s sleep
     * ({@link WheelSipTimer#endStackSleepOnStop}), then wakes its event scanner, which only notices the stop between events,
     * with one I/O event (the application counts it as {@code sip.app.errors{reason=io_exception}}
     * after its last stats line), and waits up to 5 s for that thread to end.
     */
    @Override
    public void stop() {
        EventScanner scanner = getEventScanner();
        // JAIN-SIP's own transports (jain-nio, jain-oio) keep the sleep their socket threads may need
        WheelSipTimer wheel = nettyTransport && getTimer() instanceof WheelSipTimer w ? w : null;
        if (wheel != null) {
            wheel.endStackSleepOnStop();
        }
        super.stop();
        if (wheel != null) {
            // the wheel's stop interrupted this thread just before JAIN-SIP's 1 s sleep, whose catch takes it
            stopSleepEnded = !Thread.interrupted();
            if (!stopSleepEnded) {
                log.warn("JAIN-SIP's stop did not sleep after stopping its timer (or this thread was interrupted"
                        + " meanwhile): the interruption meant for that sleep is cleared");
            }
        }
        if (scanner != null) {
            scanner.addEvent(new EventWrapper(new IOExceptionEvent(this, "0.0.0.0", 0, "stopped"), null));
        }
        if (eventScannerThread != null) {
            try {
                eventScannerThread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (eventScannerThread.isAlive()) {
                log.warn("JAIN-SIP's {} did not end within 5 s of the stack's stop", EVENT_SCANNER_THREAD);
            }
        }
    }

    /** Whether the last {@link #stop} ended JAIN-SIP's fixed sleep after stopping the timer at once. */
    boolean stopSleepEnded() {
        return stopSleepEnded;
    }

    /** The server transactions in the stack's table: a live view, weakly consistent as the table's. */
    public Collection<javax.sip.ServerTransaction> serverTransactions() {
        return java.util.Collections.unmodifiableCollection(serverTransactionTable.values());
    }

    /** Whether the stack holds a server transaction keyed {@code branch} (an RFC 3261 branch in lower case). */
    public boolean holdsServerTransaction(String branch) {
        return findTransaction(branch, true) != null;
    }

    /** The client transaction that sent {@code request}, or null when the stack holds none. */
    public javax.sip.ClientTransaction clientTransactionOf(javax.sip.message.Request request) {
        return findTransaction((SIPRequest) request, false) instanceof javax.sip.ClientTransaction ct ? ct : null;
    }

    /**
     * The next hop of a request the SIP layer marked to go over a flow (its application data a
     * {@link Flow}, RFC 5626 §5.3): the flow's peer over its transport, whatever its Route set or
     * Request-URI say; a request marked with a {@link org.sipcrypt.server.dns.Destination} (located by
     * RFC 3263 before it was sent) goes to that address over that transport; else the stack's own choice. The proxy sends such a request in a
     * {@link org.sipcrypt.server.transport.ConnectionScope#flow flow scope}, so over TCP and TLS it
     * only ever takes the flow's open connection.
     */
    @Override
    public Hop getNextHop(SIPRequest request) throws SipException {
        Hop flow = flowHop(request);
        return flow != null ? flow : super.getNextHop(request);
    }

    /** The router of a stateless send: for a request marked with a flow, one that names the flow's peer. */
    @Override
    public Router getRouter(SIPRequest request) {
        Router router = super.getRouter(request);
        Hop flow = flowHop(request);
        return flow == null ? router : new Router() {
            @Override
            public Hop getNextHop(Request r) throws SipException {
                return r == request ? flow : router.getNextHop(r);
            }

            @Override
            public Hop getOutboundProxy() {
                return router.getOutboundProxy();
            }

            @Override
            @SuppressWarnings("deprecation")
            public java.util.ListIterator<?> getNextHops(Request r) {
                return router.getNextHops(r);
            }
        };
    }

    private static Hop flowHop(SIPRequest request) {
        if (request.getApplicationData() instanceof org.sipcrypt.server.dns.Destination d) {
            // a next hop located by DNS beforehand (RFC 3263), off the lane: no lookup here
            return new HopImpl(AddressText.of(d.address().getAddress()), d.address().getPort(), d.transport().sipName());
        }
        if (!(request.getApplicationData() instanceof Flow f)) {
            return null;
        }
        return new HopImpl(AddressText.of(f.remote().getAddress()), f.remote().getPort(), f.transport().sipName());
    }

    @Override
    public ServerResponseInterface newSIPServerResponse(SIPResponse response, MessageChannel channel) {
        String key = response.getTransactionId();
        if ((sipMessageValves == null || sipMessageValves.isEmpty()) && TopVia.rfc3261Branch(key)
                && findTransaction(key, false) == null) {
            return sipMessageFactory.newSIPServerResponse(response, channel);
        }
        return super.newSIPServerResponse(response, channel);
    }
}
