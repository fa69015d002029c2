package org.sipcrypt.server.sip.proxy;

import java.net.InetSocketAddress;
import java.util.Objects;
import javax.sip.ClientTransaction;
import org.sipcrypt.server.sip.AccessPolicy;
import org.sipcrypt.server.sip.ListeningPoints;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.transport.ConnectionPolicy;
import org.sipcrypt.server.transport.EarlyRelays;
import org.sipcrypt.server.transport.Listener;
import org.sipcrypt.server.transport.SipHead;
import org.sipcrypt.server.transport.TopVia;
import org.sipcrypt.server.transport.Transport;

/**
 * The proxy's relays from bytes, as the transport's {@link EarlyRelays}: requests inside a dialog
 * this proxy record-routed (the ACK for a 2xx and BYE), relayed statelessly by {@link RequestRelay}
 * (RFC 3261 §16.11), and the responses coming back for them or settling the proxy's INVITE
 * transactions, relayed by {@link ResponseRelay}. Both write and check the branches of our Vias with
 * the proxy's {@link LoopDetector}, so that a response the stack sees for a branch written here is
 * vouched for alike.
 * Threading: thread-safe; never blocks; called on SIP worker lanes.
 */
public final class StatelessRelay implements EarlyRelays {

    private final RequestRelay requests;
    private final ResponseRelay responses;

    /**
     * @param policy  which requests may be relayed with digest authentication on; null when it is off
     * @param dialogs the dialogs a shutdown drain waits for, which a relayed BYE ends; may be null
     * @param proxy   the proxy whose INVITE transactions a 2xx or a provisional response relayed from
     *                its bytes settles; null to
     *                leave every response on a transaction of the stack to the stack
     * @param connections the pattern of outgoing connections per target: a request to a TCP or TLS
     *                    next hop under the {@code per-call} pattern takes the stack's path
     */
    public StatelessRelay(SipContext ctx, AccessPolicy policy, EstablishedDialogs dialogs, StatefulProxy proxy,
                          ConnectionPolicy connections) {
        Objects.requireNonNull(ctx, "ctx");
        // the proxy's, so that a response the stack sees for a branch written here is vouched for alike
        LoopDetector loops = proxy != null ? proxy.loops() : new LoopDetector(ctx.local());
        this.requests = new RequestRelay(ctx, policy, dialogs, connections, loops,
                proxy != null ? proxy.records() : null);
        this.responses = new ResponseRelay(ctx, proxy, loops);
    }

    @Override
    public Relay relay(SipHead request, String method, TopVia via, InetSocketAddress source, InetSocketAddress local,
                       Transport over) {
        return requests.relay(request, method, via, source, local, over);
    }

    @Override
    public boolean relaysResponse(SipHead head, TopVia via, ClientTransaction transaction, InetSocketAddress local,
                                  Transport over) {
        return responses.relaysResponse(head, via, transaction, local, over);
    }

    @Override
    public Relay relayResponse(SipHead response, TopVia via, ClientTransaction transaction, InetSocketAddress local,
                               Transport over) {
        return responses.relayResponse(response, via, transaction, local, over);
    }

    /**
     * Our listener of {@code over} bound to {@code local}, the socket the message came in on, when it
     * is an IPv4 one, else null: the one both relays read from bytes.
     */
    static Listener receivedOn(SipContext ctx, InetSocketAddress local, Transport over) {
        ListeningPoints.Entry e = ctx.listeningPoints().at(over, local);
        return e == null || e.listener().ipv6() ? null : e.listener();
    }
}
