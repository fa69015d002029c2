package org.sipcrypt.server.transport;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * Requests a proxy relays over UDP from their raw bytes, before they are parsed or have a
 * transaction: those it forwards statelessly (RFC 3261 §16.11), such as the ACK for a 2xx, whose
 * copy it can write by editing a few header lines. The transport offers only a request that no kept
 * transaction absorbed, whose version and single headers pass the checks its parse would make, and
 * whose branch names no transaction the stack holds; it sends the copy from the socket the request
 * came in on.
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
}
