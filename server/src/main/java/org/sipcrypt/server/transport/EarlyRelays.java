package org.sipcrypt.server.transport;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Messages a proxy relays over UDP from their raw bytes, before they are parsed or have a
 * transaction: requests it forwards statelessly (RFC 3261 §16.11), such as the ACK for a 2xx, whose
 * copy it can write by editing a few header lines, and the responses that come back for them. The
 * transport offers only a message whose single headers pass the checks its parse would make, and
 * whose branch names no transaction the stack holds (a request also one that no kept transaction
 * absorbed, with version SIP/2.0); it sends the copy from the socket the message came in on.
 * Threading: implementations are thread-safe and never block; called on SIP worker lanes.
 */
public interface EarlyRelays {

    /**
     * The copy of a request to send on, and where.
     *
     * @param message the bytes to send
     * @param to      the next hop, an address (no name left to resolve)
     */
    record Relay(byte[] message, InetSocketAddress to) {
        public Relay {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(to, "to");
        }
    }

    /**
     * The relayed copy of {@code request}, or null to leave it to the parser and the stack.
     *
     * @param request the raw request; its Content-Length fits the datagram
     * @param method  the method of its request line
     * @param via     its top Via, read from the bytes, with an RFC 3261 branch
     * @param source  where it came from
     * @param local   the address of the socket it came in on, which the copy is sent from
     */
    Relay relay(byte[] request, String method, TopVia via, InetSocketAddress source, InetSocketAddress local);

    /**
     * The relayed copy of {@code response}, or null to leave it to the parser and the stack.
     *
     * @param response the raw response; its Content-Length fits the datagram
     * @param via      its top Via, read from the bytes, with an RFC 3261 branch
     * @param local    the address of the socket it came in on, which the copy is sent from
     */
    Relay relayResponse(byte[] response, TopVia via, InetSocketAddress local);
}
