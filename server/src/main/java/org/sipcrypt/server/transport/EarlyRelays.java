package org.sipcrypt.server.transport;

import java.net.InetSocketAddress;
import java.util.Objects;
import javax.sip.ClientTransaction;
import javax.sip.ServerTransaction;

/**
 * Messages a proxy relays over UDP, TCP or TLS from their raw bytes, before they are parsed or have a
 * transaction: requests it forwards statelessly (RFC 3261 §16.11), such as the ACK for a 2xx, whose
 * copy it can write by editing a few header lines, the responses that come back for them, and
 * responses that settle a transaction of the stack without needing its parse (the 2xx and the
 * provisional responses but 100 to a proxied INVITE). The transport offers only a message that {@link SipBytes#irregularity}
 * passed (one reading of every header the relays read) and whose single headers pass the checks its
 * parse would make, and a request only when its branch names no transaction the stack holds, no kept transaction
 * absorbed it and its version is SIP/2.0; it sends the copy from the socket the message came in on
 * (over TCP and TLS, on the connection to the next hop, or back on the upstream server transaction's).
 * Threading: implementations are thread-safe and never block; called on SIP worker lanes.
 */
public interface EarlyRelays {

    /**
     * The copy of a message to send on, and where.
     *
     * @param message  the bytes to send
     * @param to       the next hop, an address (no name left to resolve); for a response, where its
     *                 next Via sends it
     * @param upstream for a response that settled a server transaction of the stack, that
     *                 transaction: the copy goes out on its channel to its peer (over TCP and TLS, on
     *                 the connection its request came in on, RFC 3261 §18.2.2; over UDP, that peer is
     *                 {@code to}); else null
     * @param topVia   for a response, the value of the Via line on top of the copy, which the
     *                 transaction it answers upstream is kept under; else null
     * @param cseqMethod for a response, the method of its CSeq; else null
     */
    record Relay(byte[] message, InetSocketAddress to, ServerTransaction upstream, String topVia, String cseqMethod) {
        public Relay {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(to, "to");
        }

        /** A copy sent from the socket the message came in on (over TCP and TLS, on a connection to {@code to}). */
        public Relay(byte[] message, InetSocketAddress to) {
            this(message, to, null, null, null);
        }
    }

    /**
     * The relayed copy of {@code request}, or null to leave it to the parser and the stack.
     *
     * @param request the index of the raw request, built on receipt; its Content-Length fits the datagram (over TCP and TLS, delimited it)
     * @param method  the method of its request line
     * @param via     its top Via, read from the bytes, with an RFC 3261 branch
     * @param source  where it came from
     * @param local   the address of the socket it came in on, which the copy is sent from
     * @param over    the transport it came in on
     */
    Relay relay(SipHead request, String method, TopVia via, InetSocketAddress source, InetSocketAddress local,
                Transport over);

    /**
     * Whether {@code response} is one {@link #relayResponse} may relay, judged from its status line,
     * its top Via and the transaction alone; cheap, since every response is asked. Only for those
     * that pass does the transport check its single headers and call {@link #relayResponse}.
     *
     * @param response    the index of the raw response, built on receipt
     * @param via         its top Via, read from the bytes, with an RFC 3261 branch
     * @param transaction the stack's client transaction that branch names, or null when there is none
     * @param local       the address of the socket it came in on
     * @param over        the transport it came in on
     */
    boolean relaysResponse(SipHead response, TopVia via, ClientTransaction transaction, InetSocketAddress local,
                           Transport over);

    /**
     * The relayed copy of {@code response}, or null to leave it to the parser and the stack; a
     * response on a transaction of the stack is relayed only when the SIP layer has settled that
     * transaction as the parsed response would have.
     *
     * @param response    the index of the raw response, built on receipt; its Content-Length fits the datagram (over TCP and TLS,
     *                    delimited it), its single headers
     *                    pass the parse's checks, and {@link #relaysResponse} accepted it
     * @param via         its top Via, read from the bytes, with an RFC 3261 branch
     * @param transaction the stack's client transaction that branch names, or null when there is none
     * @param local       the address of the socket it came in on, which the copy is sent from
     * @param over        the transport it came in on
     */
    Relay relayResponse(SipHead response, TopVia via, ClientTransaction transaction, InetSocketAddress local,
                        Transport over);
}
