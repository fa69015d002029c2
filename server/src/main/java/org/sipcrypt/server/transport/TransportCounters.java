package org.sipcrypt.server.transport;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The counters of bad input and connection life cycle, with the metric names of STYLE.md:
 * {@code sip.requests.rejected{reason}}, {@code sip.datagrams.dropped{reason}},
 * {@code sip.messages.dropped{reason}}, {@code transport.connections.closed{reason}},
 * {@code transport.connections.opened{direction}}, gauge {@code transport.connections.open},
 * {@code transport.keepalives.answered{transport,kind}}, {@code transport.keepalives.dropped{transport,reason}},
 * {@code sip.retransmissions.absorbed}, {@code sip.acks.absorbed},
 * {@code sip.requests.answered_early}, {@code tls.handshakes{kind,role,suite,group,engine}},
 * {@code tls.handshakes.failed{reason}},
 * {@code sip.aliases{result}}.
 * Threading: thread-safe; never blocks.
 */
public final class TransportCounters {

    private final MeterRegistry registry;
    private final AtomicInteger openConnections = new AtomicInteger();
    private final TaggedCounters counters;

    public TransportCounters(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.counters = new TaggedCounters(registry);
        registry.gauge("transport.connections.open", openConnections);
    }

    /** The registry the counters live in. */
    public MeterRegistry registry() {
        return registry;
    }

    /** A request answered with an error status because it was malformed (400, 505, ...). */
    public void requestRejected(String reason) {
        count("sip.requests.rejected", "reason", reason);
    }

    /**
     * A retransmitted request answered with the final response its completed transaction kept
     * ({@code sip.retransmissions.absorbed}).
     */
    public void retransmissionAbsorbed() {
        counters.increment("sip.retransmissions.absorbed");
    }

    /**
     * An ACK for a final response the server sent without the stack's transaction (an INVITE it
     * rejected itself over UDP), absorbed by the transport ({@code sip.acks.absorbed}).
     */
    public void ackAbsorbed() {
        counters.increment("sip.acks.absorbed");
    }

    /**
     * A request answered from its bytes before it was parsed ({@link EarlyAnswers}: the digest
     * challenge of an INVITE without credentials), {@code sip.requests.answered_early}.
     */
    public void answeredEarly() {
        counters.increment("sip.requests.answered_early");
    }

    /**
     * A request relayed from its bytes before it was parsed ({@link EarlyRelays}: the ACK for a
     * 2xx, BYE), {@code sip.requests.relayed_early}.
     */
    public void relayedEarly() {
        counters.increment("sip.requests.relayed_early");
    }

    /**
     * A response relayed from its bytes before it was parsed ({@link EarlyRelays}: one coming back
     * for a request relayed so), {@code sip.responses.relayed_early}.
     */
    public void responseRelayedEarly() {
        counters.increment("sip.responses.relayed_early");
    }

    /** A datagram dropped without an answer. */
    public void datagramDropped(String reason) {
        count("sip.datagrams.dropped", "reason", reason);
    }

    /** A message from a stream dropped without an answer (e.g. a malformed response, an overloaded lane). */
    public void messageDropped(String reason) {
        count("sip.messages.dropped", "reason", reason);
    }

    /**
     * An RFC 5923 alias offered in a request's top Via, by what became of it:
     * {@code sip.aliases{result=accepted|not_tls|no_certificate|unverified|name_mismatch}}.
     */
    public void alias(String result) {
        count("sip.aliases", "result", result);
    }

    /** A connection closed, with why. */
    public void connectionClosed(String reason) {
        count("transport.connections.closed", "reason", reason);
    }

    /**
     * A WebSocket connection refused or closed for what its client sent (RFC 7118, RFC 6455):
     * {@code transport.ws.refused{reason}}, reasons {@code not_websocket}, {@code subprotocol},
     * {@code origin}, {@code handshake_timeout}, {@code frame_too_large}, {@code bad_frame},
     * {@code ping_timeout}.
     */
    public void webSocketRefused(String reason) {
        count("transport.ws.refused", "reason", reason);
    }

    /** A connection opened, {@code inbound} or {@code outbound}. */
    public void connectionOpened(String direction) {
        count("transport.connections.opened", "direction", direction);
    }

    /**
     * A completed TLS handshake:
     * {@code tls.handshakes{kind=full|resumed,role=server|client,suite=NAME,group=NAME,engine=bc|jsse|openssl}},
     * the role the side of the handshake this server took ({@code server} on a connection it accepted,
     * {@code client} on one it opened to a peer), the suite by its standard name
     * ({@code TLS_RSA_WITH_AES_128_CBC_SHA}), the key-exchange group by its {@code tls.groups} name,
     * {@code none} or {@code unknown}, and the TLS engine that made the handshake by its
     * {@code tls.engine} name (what {@code tls.engine=auto} picked for that listener or peer).
     */
    public void tlsHandshake(boolean asClient, boolean resumed, String suite, String group, String engine) {
        counters.increment("tls.handshakes", "kind", resumed ? "resumed" : "full", "role", asClient ? "client" : "server",
                "suite", suite, "group", group, "engine", engine);
    }

    /** A TLS handshake that failed, by reason. */
    public void tlsHandshakeFailed(String reason) {
        count("tls.handshakes.failed", "reason", reason);
    }

    /**
     * A keep-alive answered (RFC 5626 §3.5.1): {@code transport.keepalives.answered{transport,kind}},
     * {@code kind=stun} a STUN Binding request on a UDP port, {@code kind=crlf} a CRLFCRLF ping on a
     * TCP or TLS connection, answered with a CRLF pong.
     */
    public void keepAliveAnswered(Transport transport, String kind) {
        counters.increment("transport.keepalives.answered", "transport", transport.configName(), "kind", kind);
    }

    /**
     * A keep-alive, or what came as one, left unanswered: {@code transport.keepalives.dropped{transport,reason}}.
     * Reasons {@code crlf} (a datagram of only CR, LF, SP, HT or NUL: nothing to answer over UDP) and
     * {@code pong} (a single CRLF on a connection) are the normal case; {@code stun_*} reasons are bad
     * or unsupported STUN ({@link StunBindingResponder.Outcome#tag()}).
     */
    public void keepAliveDropped(Transport transport, String reason) {
        counters.increment("transport.keepalives.dropped", "transport", transport.configName(), "reason", reason);
    }

    /** The gauge of open connections, also used to enforce the connection cap. */
    public AtomicInteger openConnections() {
        return openConnections;
    }

    /** Current value of an untagged counter, 0 when it was never incremented. */
    public double value(String name) {
        Counter c = registry.find(name).counter();
        return c == null ? 0 : c.count();
    }

    /**
     * Current value of a counter with this tag, summed over its other tags (e.g. every suite of
     * {@code tls.handshakes{kind=full}}); 0 when it was never incremented. For tests and the stats line.
     */
    public double value(String name, String tagKey, String tagValue) {
        return registry.find(name).tag(tagKey, tagValue).counters().stream().mapToDouble(Counter::count).sum();
    }

    /** Current value of the counter with both tags, summed over any others; 0 when it was never incremented. */
    public double value(String name, String key1, String value1, String key2, String value2) {
        return registry.find(name).tag(key1, value1).tag(key2, value2).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private void count(String name, String tagKey, String tagValue) {
        counters.increment(name, tagKey, tagValue);
    }
}
