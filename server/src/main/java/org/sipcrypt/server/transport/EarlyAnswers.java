package org.sipcrypt.server.transport;

import org.sipcrypt.server.transport.kept.CompletedTransactions;
import java.net.InetSocketAddress;

/**
 * Final responses a server gives some requests over UDP from their raw bytes, before they are
 * parsed or have a transaction: those whose answer the SIP layer can tell from a few header lines,
 * such as the digest challenge of a request without credentials. The transport sends the response
 * back to where the request came from and keeps it with {@link CompletedTransactions}, which answers
 * the request's retransmissions with it and absorbs the ACK of a rejected INVITE (RFC 3261 §17.2.1,
 * §17.2.2), as for a response the stack sent.
 * Threading: implementations are thread-safe and never block; called on SIP worker lanes.
 */
public interface EarlyAnswers {

    /**
     * Whether {@code request} is one this would answer, judged from its own lines alone; cheap, since
     * every UDP request but an ACK is asked. Only for those that pass does the transport make the
     * checks the parse would make (version, repeated headers, the branch) and call {@link #answer}.
     *
     * @param request the index of the raw request, built on receipt
     * @param method  the method of its request line (never ACK)
     * @param source  where it came from
     */
    boolean answers(SipHead request, String method, InetSocketAddress source);

    /**
     * The bytes of a 300–699 response to a request {@link #answers} accepted, or null to leave it to
     * the parser and the stack after all.
     *
     * @param request the index of the raw request, built on receipt; its Content-Length fits the datagram, and no kept transaction
     *                matched it
     * @param method  the method of its request line (never ACK)
     * @param via     its top Via, read from the bytes, with an RFC 3261 branch
     * @param source  where it came from, and where the response goes
     */
    byte[] answer(SipHead request, String method, TopVia via, InetSocketAddress source);
}
