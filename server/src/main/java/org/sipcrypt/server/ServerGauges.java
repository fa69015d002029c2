package org.sipcrypt.server;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import org.sipcrypt.server.location.CachedLocationService;
import org.sipcrypt.server.location.DatabaseBreaker;
import org.sipcrypt.server.location.JdbcLocationService;
import org.sipcrypt.server.location.LocationService;
import org.sipcrypt.server.sip.registrar.RegisteredFlows;
import org.sipcrypt.server.transport.kept.CompletedTransactions;
import org.sipcrypt.server.transport.SipWorkers;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.netty.NettyTransport;

/**
 * The meters of the server's state for {@code /metrics} and the stats line, read when scraped:
 * the database breaker, live transactions, queued work, open connections per stream transport,
 * bindings stored and registered flows open. The counters of events are registered where the events happen.
 * Threading: immutable (static methods only); call during start.
 */
final class ServerGauges {

    private ServerGauges() {
    }

    /**
     * The database breaker's meters: {@code db.breaker.open} (1 while open),
     * {@code db.breaker.transitions{to=open|closed}} and {@code db.breaker.rejected{op}}.
     */
    static void databaseBreaker(DatabaseBreaker breaker, MeterRegistry registry) {
        Gauge.builder("db.breaker.open", breaker, b -> b.isOpen() ? 1 : 0).register(registry);
        FunctionCounter.builder("db.breaker.transitions", breaker, b -> b.transitions(true))
                .tag("to", "open").register(registry);
        FunctionCounter.builder("db.breaker.transitions", breaker, b -> b.transitions(false))
                .tag("to", "closed").register(registry);
        for (String op : DatabaseBreaker.OPERATIONS) {
            FunctionCounter.builder("db.breaker.rejected", breaker, b -> b.refused(op))
                    .tag("op", op).register(registry);
        }
    }

    /**
     * {@code sip.flows.open{transport}} per transport listened on: bindings registered through this
     * server that a request reaches over their flow now ({@link RegisteredFlows}).
     */
    static void flows(MeterRegistry registry, RegisteredFlows flows, Set<Transport> listened) {
        for (Transport t : listened) {
            Gauge.builder("sip.flows.open", flows, f -> f.open(t)).tag("transport", t.configName())
                    .description("registered bindings reached over their flow now").register(registry);
        }
    }

    /** The location cache's {@code location.cache{result=hit|miss}}: lookups answered from memory, and from the database. */
    static void locationCache(CachedLocationService cache, MeterRegistry registry) {
        FunctionCounter.builder("location.cache", cache, CachedLocationService::hits).tag("result", "hit").register(registry);
        FunctionCounter.builder("location.cache", cache, CachedLocationService::misses).tag("result", "miss").register(registry);
    }

    /**
     * Live transactions (and of them the server transactions), messages queued per lane, open
     * connections per stream transport listened on (sipcrypt's transport only; {@code transport}
     * null otherwise), bindings stored.
     */
    /**
     * The kept-transactions table: {@code sip.kept.bytes} now, and {@code sip.kept.evicted{reason}},
     * entries removed before their time (the entries or bytes bound, the heap guard's trim, or an
     * answer too large to keep at all).
     */
    static void keptTransactions(MeterRegistry r, CompletedTransactions kept) {
        Gauge.builder("sip.kept.bytes", kept, CompletedTransactions::keptBytes)
                .description("bytes of answers kept for retransmissions (overload.maxKeptBytes)").register(r);
        for (String reason : new String[] {"entries", "bytes", "trim", "too_large"}) {
            FunctionCounter.builder("sip.kept.evicted", kept, k -> k.evicted(reason)).tag("reason", reason)
                    .description("kept answers removed before their time").register(r);
        }
    }

    static void serverState(MeterRegistry r, SipcryptServer server, ToDoubleFunction<SipcryptServer> transactions,
                            ToDoubleFunction<SipcryptServer> serverTransactions, SipWorkers workers,
                            NettyTransport transport, Set<Transport> listened, LocationService location) {
        Gauge.builder("sip.transactions.live", server, transactions)
                .description("server and client transactions in the stack").register(r);
        Gauge.builder("sip.transactions.live.server", server, serverTransactions)
                .description("server transactions in the stack, answered or not").register(r);
        for (int i = 0; i < workers.laneCount(); i++) {
            int lane = i;
            Gauge.builder("sip.workers.queued", workers, w -> w.queuedInLane(lane)).tag("lane", String.valueOf(lane))
                    .description("messages waiting in a SIP worker lane's queue").register(r);
        }
        Gauge.builder("sip.workers.queued.bytes", workers, SipWorkers::queuedBytes)
                .description("bytes of received messages waiting in all SIP worker lanes (overload.maxQueuedBytes)")
                .register(r);
        FunctionCounter.builder("sip.workers.refused", workers, SipWorkers::refusedForBytes).tag("reason", "bytes")
                .description("messages refused because the lanes held overload.maxQueuedBytes").register(r);
        if (transport != null) {
            keptTransactions(r, transport.completedTransactions());
            for (Transport t : listened) {
                if (t != Transport.UDP) {
                    Gauge.builder("transport.connections.current", transport, n -> n.openConnections(t))
                            .tag("transport", t.configName())
                            .description("open connections of a stream transport, inbound and outbound").register(r);
                }
            }
        }
        LocationService stored = location instanceof CachedLocationService cached ? cached.store() : location;
        if (stored instanceof JdbcLocationService jdbc) {
            Gauge.builder("registrar.bindings", jdbc, l -> l.bindingsStored() < 0 ? Double.NaN : l.bindingsStored())
                    .description("registrations (bindings) stored").register(r);
        }
    }
}
