package org.sipcrypt.server.sip.registrar;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.sipcrypt.server.location.Binding;
import org.sipcrypt.server.transport.CallConnections;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.transport.Transport;

/**
 * The flows of the bindings registered through this server (RFC 5626 §3.3), for the gauge
 * {@code sip.flows.open{transport}}: how many bindings a request would reach over their flow now
 * ({@link #usable}: over TCP and TLS, the connection the phone registered over is open; over UDP,
 * a binding behind a NAT, or an outbound one, reached at the address its REGISTER came from).
 * The registrar notes each address-of-record's live bindings after every REGISTER it completes;
 * lapsed bindings leave when the gauge is read. A binding another server wrote, in a database
 * servers share, is seen only once a REGISTER for its address-of-record passes here (its flow is
 * on that server anyway). Bounded: at most {@code maxAors} addresses-of-record, each with at most
 * the bindings of one REGISTER's answer ({@code registrar.maxContacts}); an address-of-record
 * beyond the bound is not noted (the gauge then counts low) until lapsed ones make room.
 * Threading: thread-safe; never blocks (noted on SIP worker lanes, read by the metrics scrape).
 */
public final class RegisteredFlows {

    /** One binding's flow, whether it must be taken, and when the binding lapses. */
    private record Held(Flow flow, boolean required, Instant expiresAt) {
    }

    private final Map<String, List<Held>> byAor = new ConcurrentHashMap<>();
    private final CallConnections calls;
    private final Clock clock;
    private final int maxAors;

    /**
     * @param calls   tells whether a flow's connection is open
     * @param clock   the registrar's clock, against which bindings lapse
     * @param maxAors most addresses-of-record held ({@code registrar.maxBindings})
     */
    public RegisteredFlows(CallConnections calls, Clock clock, int maxAors) {
        this.calls = Objects.requireNonNull(calls, "calls");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (maxAors < 1) {
            throw new IllegalArgumentException("maxAors must be at least 1: " + maxAors);
        }
        this.maxAors = maxAors;
    }

    /**
     * Whether a request for a binding goes over its flow now (RFC 5626 §5.3): over TCP and TLS
     * while the connection it registered over is open; over UDP when the flow must be taken (a NAT
     * was seen, or it is an outbound binding). The proxy's {@code TargetSelector} follows the same rule.
     *
     * @param flow     the binding's flow, or null when it has none
     * @param required whether a NAT was seen, or the binding is an outbound one
     */
    public static boolean usable(Flow flow, boolean required, CallConnections calls) {
        return flow != null && (flow.transport().reliable() || required) && calls.flowOpen(flow);
    }

    /** Whether requests for {@code b} must take its flow: a NAT was seen, or it is an outbound binding. */
    public static boolean flowRequired(Binding b) {
        return b.nat() || b.outbound();
    }

    /** Notes the live bindings of {@code aor} after a REGISTER through this server: they replace what was held. */
    public void registered(String aor, List<Binding> bindings) {
        List<Held> held = new ArrayList<>(bindings.size());
        for (Binding b : bindings) {
            // a binding with a Path is reached through its edge proxy, not over a flow of its own
            Flow f = b.path() == null ? Flow.parse(b.flow()) : null;
            boolean required = flowRequired(b);
            if (f != null && (f.transport().reliable() || required)) {
                held.add(new Held(f, required, b.expiresAt()));
            }
        }
        if (held.isEmpty()) {
            byAor.remove(aor);
            return;
        }
        if (byAor.size() >= maxAors && !byAor.containsKey(aor)) {
            removeLapsed(clock.instant());
            if (byAor.size() >= maxAors) {
                return;
            }
        }
        byAor.put(aor, List.copyOf(held));
    }

    /** Bindings held whose flow over {@code transport} is usable now; the lapsed ones are forgotten. */
    public int open(Transport transport) {
        Instant now = clock.instant();
        int n = 0;
        for (Map.Entry<String, List<Held>> e : byAor.entrySet()) {
            boolean live = false;
            for (Held h : e.getValue()) {
                if (h.expiresAt().isAfter(now)) {
                    live = true;
                    if (h.flow().transport() == transport && usable(h.flow(), h.required(), calls)) {
                        n++;
                    }
                }
            }
            if (!live) {
                byAor.remove(e.getKey(), e.getValue());
            }
        }
        return n;
    }

    /** Addresses-of-record held now. */
    int size() {
        return byAor.size();
    }

    private void removeLapsed(Instant now) {
        byAor.entrySet().removeIf(e -> e.getValue().stream().noneMatch(h -> h.expiresAt().isAfter(now)));
    }
}
