package org.sipcrypt.server.sip;

import io.micrometer.core.instrument.MeterRegistry;
import org.sipcrypt.server.transport.TaggedCounters;

/**
 * Counters of the SIP application: {@code sip.responses.sent{status}} (by class, e.g. 2xx),
 * {@code sip.requests.received{method}}, {@code sip.proxy.forwarded{method}},
 * {@code sip.app.errors{reason}}, {@code sip.requests.dropped{reason}}, {@code db.errors},
 * {@code sip.transactions.aborted{reason}}, {@code sip.registrations.nat{transport}},
 * {@code sip.registrations.path{result}},
 * {@code sip.flows.failed{reason}}, and the timer
 * {@code sip.transaction.duration} ({@link TransactionTimes}).
 * Threading: thread-safe; never blocks.
 */
public final class SipCounters {

    private final TaggedCounters counters;
    private final TransactionTimes transactionTimes;

    public SipCounters(MeterRegistry registry) {
        this.counters = new TaggedCounters(registry);
        this.transactionTimes = new TransactionTimes(registry);
    }

    /** The timer of server transaction lifetimes ({@code sip.transaction.duration}). */
    public TransactionTimes transactionTimes() {
        return transactionTimes;
    }

    public void requestReceived(String method) {
        count("sip.requests.received", "method", method);
    }

    public void responseSent(int status) {
        count("sip.responses.sent", "status", (status / 100) + "xx");
    }

    public void forwarded(String method) {
        count("sip.proxy.forwarded", "method", method);
    }

    public void error(String reason) {
        count("sip.app.errors", "reason", reason);
    }

    /** A request answered 400 by the SIP layer (the transport counts its own). */
    public void rejected(String reason) {
        count("sip.requests.rejected", "reason", reason);
    }

    /** A request dropped without an answer (an ACK has none), e.g. an ACK without a dialog route of ours. */
    public void dropped(String reason) {
        count("sip.requests.dropped", "reason", reason);
    }

    /**
     * A server transaction the server ended before its timers would: its final response could not
     * be delivered ({@code send_failed}, {@code no_listener}), or it outlived the age bound
     * ({@code age_bound}).
     */
    public void transactionAborted(String reason) {
        count("sip.transactions.aborted", "reason", reason);
    }

    /**
     * What the registrar did with a REGISTER's Path (RFC 3327): {@code stored},
     * {@code ignored_untrusted}, {@code refused_unsupported}, {@code refused_too_long} or
     * {@code refused_bad_path}.
     */
    public void pathRegistration(String result) {
        count("sip.registrations.path", "result", result);
    }

    /**
     * What the proxy did as the edge proxy of a REGISTER it relayed (RFC 3327 §5.2, RFC 5626 §5.1):
     * {@code added} its Path, or {@code refused_extension_required} (421) one whose phone needs it
     * but does not support it.
     */
    public void edgePath(String result) {
        count("sip.proxy.path", "result", result);
    }

    /** A REGISTER whose contacts or Via showed a NAT between the phone and this server. */
    public void natRegistration(String transport) {
        count("sip.registrations.nat", "transport", transport);
    }

    /**
     * A request that could not go over the flow it had to take: {@code closed} (the binding's
     * connection is gone; 430 or 480), {@code closed_in_dialog} (an in-dialog request's other flow
     * is gone; 430), {@code bad_token} (a forged or altered flow token; 403).
     */
    public void flowFailed(String reason) {
        count("sip.flows.failed", "reason", reason);
    }

    public void dbError() {
        count("db.errors", "kind", "request");
    }

    private void count(String name, String tagKey, String tagValue) {
        counters.increment(name, tagKey, tagValue);
    }
}
