package org.sipcrypt.server.sip.proxy;

import java.text.ParseException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.sip.ClientTransaction;
import javax.sip.InvalidArgumentException;
import javax.sip.SipException;
import javax.sip.address.Address;
import javax.sip.address.SipURI;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.sipcrypt.server.sip.ListeningPoints;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.StackInternals;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes every destination of the destination sets with OPTIONS (RFC 3261 §11) every
 * {@code destinations.probeInterval}, through the server's own stack and listening points, so a probe
 * carries the Via of the listener a request to that destination leaves from. A probe is answered by any
 * final response but 408 and 503 (a 404 or 405 still says a SIP server is there and its transaction layer
 * works; 503 says it takes no calls, 408 that something behind it did not answer); it fails when it is
 * answered 408 or 503, times out, cannot be sent, or is still unanswered when the next probe goes. After
 * {@code probeDownAfter} failures in a row the destination is down, after {@code probeUpAfter} answers in a
 * row up again; each change is logged (WARN down, INFO up).
 * Threading: thread-safe; sends on its own {@code sipcrypt-probe} thread (never a SIP lane or an event
 * loop), answers arrive on SIP worker lanes and only update counters.
 */
public final class DestinationProber implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DestinationProber.class);

    private final SipContext ctx;
    private final LiveRoutes routes;
    private final ScheduledThreadPoolExecutor thread;

    /**
     * One probe on its way: the application data of its client transaction.
     * Threading: made on the probe thread; {@code tx} set there and read on SIP worker lanes (volatile).
     */
    static final class Probe {
        final DestinationProber prober;
        final Destination destination;
        volatile ClientTransaction tx;

        Probe(DestinationProber prober, Destination destination) {
            this.prober = prober;
            this.destination = destination;
        }
    }

    private DestinationProber(SipContext ctx, LiveRoutes routes) {
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.routes = Objects.requireNonNull(routes, "routes");
        this.thread = NamedThreads.named("sipcrypt-probe").scheduler();
    }

    /**
     * Starts probing every destination of the sets in force, every {@code interval} (the one taken at
     * start: a reload does not change it); the first probes go at once. Each round probes the sets in
     * force when it starts, so a destination a reload adds is probed from the next round on and one it
     * removes no longer.
     */
    public static DestinationProber start(SipContext ctx, LiveRoutes routes, Duration interval) {
        DestinationProber p = new DestinationProber(ctx, routes);
        p.thread.scheduleWithFixedDelay(p::probeAll, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        return p;
    }

    private void probeAll() {
        for (Destination d : routes.current().sets().destinations()) {
            try {
                probe(d);
            } catch (RuntimeException e) {
                // a periodic task that throws is never run again: counted and logged instead
                ctx.counters().error("probe");
                log.debug("{}: probe failed: {}", d, e.toString());
            }
        }
    }

    private void probe(Destination d) {
        Probe p = new Probe(this, d);
        if (d.probeSent(p) instanceof Probe unanswered) {
            failed(d, "unanswered");
            ClientTransaction old = unanswered.tx;
            if (old != null) {
                ctx.endTransaction(old);
            }
        }
        NextHop hop = d.hop();
        ListeningPoints.Entry from = ctx.listeningPoints().toward(hop.transport(), hop.host());
        try {
            Request options = options(hop, from);
            ClientTransaction ct = from.provider().getNewClientTransaction(options);
            if (StackInternals.overUdp(ct)) {
                StackInternals.shortenT4(ct);
            }
            ct.setApplicationData(p);
            p.tx = ct;
            ct.sendRequest();
        } catch (ParseException | InvalidArgumentException | SipException | RuntimeException e) {
            log.debug("{}: cannot send OPTIONS: {}", d, e.toString());
            if (d.probeEnded(p)) {
                failed(d, "not sent");
            }
        }
    }

    /** An OPTIONS to {@code hop}'s address, from {@code from}'s listener. */
    private Request options(NextHop hop, ListeningPoints.Entry from) throws ParseException, InvalidArgumentException {
        String host = hop.host().indexOf(':') >= 0 && !hop.host().startsWith("[") ? "[" + hop.host() + "]" : hop.host();
        SipURI target = ctx.addresses().createSipURI(null, host);
        target.setPort(hop.port());
        target.setTransportParam(hop.transport().configName());
        SipURI self = ctx.addresses().createSipURI("sipcrypt", from.listener().sentByHost());
        Address selfAddress = ctx.addresses().createAddress(self);
        String id = UUID.randomUUID().toString();
        return ctx.messages().createRequest(target, Request.OPTIONS,
                ctx.headers().createCallIdHeader(id + "@sipcrypt-probe"),
                ctx.headers().createCSeqHeader(1L, Request.OPTIONS),
                ctx.headers().createFromHeader(selfAddress, id.substring(0, 8)),
                ctx.headers().createToHeader(ctx.addresses().createAddress(target), null),
                List.of(ctx.via(from.listener(), "z9hG4bK-probe-" + id)),
                ctx.headers().createMaxForwardsHeader(70));
    }

    /** A response to a probe, on a SIP worker lane. */
    void answered(Probe p, Response response, ClientTransaction ct) {
        int status = response.getStatusCode();
        if (status < 200) {
            return;
        }
        ctx.endTransaction(ct);
        Destination d = p.destination;
        if (!d.probeEnded(p)) {
            return;
        }
        if (status == Response.REQUEST_TIMEOUT || status == Response.SERVICE_UNAVAILABLE) {
            failed(d, "answered " + status);
        } else if (d.probeAnswered()) {
            log.info("destination {} is up: {} answered probes in a row", d, d.upAfter());
        }
    }

    /** A probe that timed out or whose connection could not be set up, on a SIP worker lane. */
    void failed(Probe p, String why) {
        if (p.destination.probeEnded(p)) {
            failed(p.destination, why);
        }
    }

    private void failed(Destination d, String why) {
        if (d.probeFailed()) {
            log.warn("destination {} is down: {} failed probes in a row (the last {}); its sets skip it",
                    d, d.downAfter(), why);
        }
    }

    /** Stops probing; probes on their way are left to their transactions. */
    @Override
    public void close() {
        thread.shutdownNow();
    }
}
