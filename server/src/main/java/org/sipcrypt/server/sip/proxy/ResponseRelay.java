package org.sipcrypt.server.sip.proxy;

import java.net.InetSocketAddress;
import java.util.Objects;
import javax.sip.ClientTransaction;
import javax.sip.ServerTransaction;
import javax.sip.message.Request;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.transport.EarlyRelays.Relay;
import org.sipcrypt.server.transport.HeadCopy;
import org.sipcrypt.server.transport.Listener;
import org.sipcrypt.server.transport.SipHead;
import org.sipcrypt.server.transport.TopVia;
import org.sipcrypt.server.transport.Transport;

/**
 * Responses relayed upstream from their raw bytes (RFC 3261 §16.7 step 9). A response whose top Via
 * is one of the stateless Vias {@link RequestRelay} writes goes back by the next Via (its {@code
 * received} and {@code rport}, RFC 3581), with our Via taken off, as the stack forwards a response
 * without a transaction, once {@link LoopDetector#vouchesFor} has checked the branch. So does a 2xx
 * to an INVITE the proxy forwarded statefully, once {@link StatefulProxy#okRelayedFromBytes} has
 * settled the call with the client transaction its branch names (retransmissions of that 2xx find
 * no transaction and take the stack's path), and a provisional response other than 100 to such an
 * INVITE, once {@link StatefulProxy#provisionalRelayedFromBytes} has moved that transaction on (over
 * UDP the transport keeps the copy for the INVITE's retransmissions); such a response goes out on
 * the channel of the INVITE's server transaction. A response in another form than the one read here
 * (folded or bare-LF lines, a next Via this does not read or over another transport) takes the
 * stack's path.
 * Threading: thread-safe; never blocks; called on SIP worker lanes.
 */
final class ResponseRelay {

    private final SipContext ctx;
    private final StatefulProxy proxy;
    private final LoopDetector loops;

    /**
     * @param proxy the proxy whose INVITE transactions a 2xx or a provisional response relayed from
     *              its bytes settles; null to leave every response on a transaction of the stack to
     *              the stack
     * @param loops checks the branch of a stateless Via of ours, as the proxy's own
     */
    ResponseRelay(SipContext ctx, StatefulProxy proxy, LoopDetector loops) {
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.proxy = proxy;
        this.loops = Objects.requireNonNull(loops, "loops");
    }

    /**
     * Whether a response is one {@link #relayResponse} may relay, as {@link
     * org.sipcrypt.server.transport.EarlyRelays#relaysResponse} asks: cheap, every response is asked.
     */
    boolean relaysResponse(SipHead head, TopVia via, ClientTransaction transaction, InetSocketAddress local,
                           Transport over) {
        if (transaction != null) {
            byte[] response = head.bytes();
            // a 2xx or a provisional response other than 100 to an INVITE this proxy forwarded,
            // settled with its transaction by the proxy
            return proxy != null && response.length > 10
                    && (response[8] == '2' || response[8] == '1' && (response[9] != '0' || response[10] != '0'))
                    && transaction.getRequest() != null
                    && Request.INVITE.equals(transaction.getRequest().getMethod())
                    && StatelessRelay.receivedOn(ctx, local, over) != null;
        }
        Listener lp = StatelessRelay.receivedOn(ctx, local, over);
        return lp != null && via.branch().startsWith(LoopDetector.PREFIX) && via.branch().endsWith(".s")
                && lp.isSentBy(via.host(), via.port());
    }

    /**
     * The relayed copy of a response, or null to leave it to the stack, as {@link
     * org.sipcrypt.server.transport.EarlyRelays#relayResponse} asks.
     */
    Relay relayResponse(SipHead response, TopVia via, ClientTransaction transaction, InetSocketAddress local,
                        Transport over) {
        Upstream up = Upstream.read(response, via, over);
        if (up == null) {
            return null;
        }
        if (transaction == null && !loops.vouchesFor(via.branch(), up.returnPath())) {
            // not a branch this server wrote for a request whose response goes there: the stack
            // drops it and counts it (StatefulProxy), so nothing is relayed or kept for it
            return null;
        }
        ServerTransaction upstream = null;
        if (transaction != null) {
            String fromTag = up.from() == null ? null : tag(up.from());
            if (up.callId() == null || fromTag == null || up.cseq() == null) {
                return null;
            }
            String number = CSeqText.sequence(up.cseq(), Request.INVITE);
            if (up.status() / 100 == 2) {
                String toTag = up.to() == null ? null : tag(up.to());
                upstream = toTag == null ? null : proxy.okRelayedFromBytes(transaction, up.status(), up.callId(),
                        fromTag, toTag, number, up.destination(), local, over, up.to(), response.value("contact"),
                        response.values("record-route"));
            } else {
                upstream = proxy.provisionalRelayedFromBytes(transaction, up.status(), up.callId(), fromTag, number,
                        up.destination(), local, over);
            }
            if (upstream == null) {
                return null;
            }
        } else {
            ctx.counters().responseSent(up.status());
        }
        return new Relay(up.relayed(), up.destination(), upstream, up.topViaValue(), CSeqText.method(up.cseq()));
    }

    /**
     * A response going back through a Via of ours: its status, the copy without that Via, where the
     * next Via says to send it, the value of the Via line on top of the copy, and its Call-ID, From,
     * To and CSeq values as they came (null when missing), which a 2xx on a transaction of the stack
     * is matched by.
     */
    private record Upstream(int status, byte[] relayed, InetSocketAddress destination, String returnPath,
                            String topViaValue, String callId, String from, String to, String cseq) {

        /**
         * The response {@code sip} indexes, which came in over {@code over} and whose top Via is
         * {@code ours}, or null when it is not in the form read here (as for {@link InDialog#read}).
         */
        static Upstream read(SipHead sip, TopVia ours, Transport over) {
            int status = sip.status();
            int viaLine = status < 0 || !sip.crlfOnly() ? -1 : sip.lineOf("via", 0);
            if (viaLine < 0) {
                return null;
            }
            String value = sip.lineValueText(viaLine);
            if (!value.startsWith(ours.entry())) {
                return null;
            }
            String rest = value.substring(ViaEntry.topEntry(value).length()).trim();
            HeadCopy copy = new HeadCopy(sip);
            String nextValue;
            if (rest.isEmpty()) {
                copy.remove(viaLine);
                int second = sip.lineOf("via", viaLine + 1);
                nextValue = second < 0 ? null : sip.lineValueText(second);
            } else if (rest.startsWith(",")) {
                nextValue = rest.substring(1).trim();
                copy.replace(viaLine, sip.lineNameText(viaLine) + ' ' + nextValue);
            } else {
                return null;
            }
            String next = nextValue == null ? null : ViaEntry.topEntry(nextValue);
            ViaEntry entry = next == null || next.indexOf('"') >= 0 || next.indexOf('[') >= 0 ? null : ViaEntry.read(next);
            InetSocketAddress to = entry == null ? null : entry.address(over);
            if (to == null) {
                return null;
            }
            return new Upstream(status, copy.bytes(), to, entry.returnPath(), nextValue, sip.callId(),
                    sip.value("from"), sip.value("to"), sip.value("cseq"));
        }
    }

    /** The tag parameter of a From or To value, or null when it has none: the one reader, {@link SipHead#tag}. */
    private static String tag(String value) {
        return SipHead.tag(value);
    }
}
