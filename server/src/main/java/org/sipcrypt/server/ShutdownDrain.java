package org.sipcrypt.server;

import java.time.Duration;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.proxy.EstablishedDialogs;
import org.sipcrypt.server.transport.OverloadGuard;
import org.sipcrypt.server.transport.netty.NettyTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The graceful part of shutdown: from its start every new request outside a dialog gets
 * {@code 503 Shutting Down} with {@code Retry-After} (at the transport, and in the dispatcher for
 * the JAIN-SIP transports), and requests within dialogs and responses keep being forwarded. TCP
 * connections are still accepted until the drain ends, so that a new client gets its 503 rather than
 * a refused connection, and a party to a call whose connection was closed can still send its BYE.
 * It ends as soon as no request awaits its final response and no established call is left, or when
 * the grace runs out.
 * Threading: {@link #run} once, from the thread that closes the server; it sleeps, so never on an event
 * loop or a SIP lane. {@link #refuseNewRequests} from any thread; it never blocks.
 */
final class ShutdownDrain {

    private static final Logger log = LoggerFactory.getLogger(ShutdownDrain.class);
    private static final long POLL_MILLIS = 50;

    private final SipContext context;
    private final OverloadGuard guard;
    private final EstablishedDialogs dialogs;
    private final NettyTransport transport;

    /**
     * @param guard     refuses new requests at the transport; null with the JAIN-SIP transports
     * @param dialogs   established calls to wait for; null when none are kept (recordRoute off)
     * @param transport sipcrypt's transport, to stop accepting connections when the drain ends; null with JAIN-SIP's
     */
    ShutdownDrain(SipContext context, OverloadGuard guard, EstablishedDialogs dialogs, NettyTransport transport) {
        this.context = context;
        this.guard = guard;
        this.dialogs = dialogs;
        this.transport = transport;
    }

    /**
     * From now on every new request outside a dialog gets 503 with Retry-After; requests within
     * dialogs and responses still go through. What {@code POST /admin/drain} does, and the first step of {@link #run}.
     */
    void refuseNewRequests() {
        context.startDraining();
        if (guard != null) {
            guard.startDraining();
        }
    }

    /** Refuses new requests and waits up to {@code grace} for calls and transactions to end. */
    void run(Duration grace) {
        long start = System.nanoTime();
        refuseNewRequests();
        log.info("shutting down: new requests get 503; waiting up to {} for {} established calls and {} requests"
                + " awaiting an answer", grace, calls(), context.unansweredRequests());
        long deadline = start + grace.toNanos();
        while ((context.unansweredRequests() > 0 || calls() > 0) && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (transport != null) {
            transport.stopAccepting();
        }
        int calls = calls();
        int requests = context.unansweredRequests();
        if (calls > 0 || requests > 0) {
            log.warn("shutting down after {} with {} calls still established and {} requests unanswered"
                    + " (shutdown.grace)", grace, calls, requests);
        } else {
            log.info("drained in {} ms", (System.nanoTime() - start) / 1_000_000);
        }
    }

    /** Established calls now. */
    int calls() {
        return dialogs == null ? 0 : dialogs.size();
    }
}
