package org.sipcrypt.server.sip;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sip.ListeningPoint;
import javax.sip.SipProvider;
import javax.sip.Transaction;
import javax.sip.message.Message;
import org.sipcrypt.server.transport.Listener;
import org.sipcrypt.server.transport.Transport;

/**
 * The server's listeners with their JAIN-SIP listening points and providers, and which one a
 * message uses. JAIN-SIP lets a provider hold one listening point per transport, so the k-th
 * listener of each transport is under the k-th provider; the provider a request is sent or a
 * response answered through picks the socket it leaves from. A response goes from the listener its
 * request came in on (the stack's server transaction sees to that); anything else from the first
 * listener of its transport whose address family is the destination's (the first of the transport
 * when the destination is a name, or none matches).
 * Threading: immutable.
 */
public final class ListeningPoints {

    /** One listener, its listening point, and the provider that holds that listening point. */
    public record Entry(Listener listener, ListeningPoint point, SipProvider provider) {
        public Entry {
            Objects.requireNonNull(listener, "listener");
            Objects.requireNonNull(point, "point");
            Objects.requireNonNull(provider, "provider");
        }
    }

    private final List<Entry> entries;

    /** @param entries in configuration order */
    public ListeningPoints(List<Entry> entries) {
        this.entries = List.copyOf(entries);
        if (this.entries.isEmpty()) {
            throw new IllegalArgumentException("no listening points");
        }
    }

    /** Every entry, in configuration order. */
    public List<Entry> all() {
        return entries;
    }

    /** The listeners, in configuration order. */
    public List<Listener> listeners() {
        List<Listener> out = new ArrayList<>(entries.size());
        entries.forEach(e -> out.add(e.listener()));
        return out;
    }

    /** The first provider: it holds the first listening point of every transport. */
    public SipProvider defaultProvider() {
        return entries.get(0).provider();
    }

    /** The first entry of a transport, or null when the server does not listen on it. */
    public Entry first(Transport transport) {
        for (Entry e : entries) {
            if (e.listener().transport() == transport) {
                return e;
            }
        }
        return null;
    }

    /**
     * The entry a message to {@code host} over {@code transport} leaves from: the first of the
     * transport whose address family is that of {@code host} when it is an IP literal, else the first
     * of the transport; null when the server does not listen on it. Never looks a name up.
     */
    public Entry toward(Transport transport, String host) {
        InetAddress literal = literal(host);
        if (literal != null) {
            for (Entry e : entries) {
                if (e.listener().transport() == transport && e.listener().sameFamily(literal)) {
                    return e;
                }
            }
        }
        return first(transport);
    }

    /** The entry bound to {@code local} over {@code transport} (the socket a message came in on), or null. */
    public Entry at(Transport transport, InetSocketAddress local) {
        for (Entry e : entries) {
            Listener l = e.listener();
            if (l.transport() == transport && l.bound().getPort() == local.getPort()
                    && l.bound().getAddress().equals(local.getAddress())) {
                return e;
            }
        }
        return null;
    }

    /** The entry of a listening point, or null. */
    public Entry of(ListeningPoint point) {
        for (Entry e : entries) {
            if (e.point() == point) {
                return e;
            }
        }
        return null;
    }

    /**
     * The entry a received message came in on, by the local address and port the transport noted on
     * it and its transport; null when it is not known.
     */
    public Entry receivedOn(Message message, Transport transport) {
        InetSocketAddress local = StackInternals.local(message);
        return local == null ? null : at(transport, local);
    }

    /** The entry of a transaction's listening point (the one its request came in on, or left from), or null. */
    public Entry of(Transaction transaction) {
        ListeningPoint lp = StackInternals.listeningPointOf(transaction);
        return lp == null ? null : of(lp);
    }

    /** Whether host and port ({@code -1} for none) are the sent-by of one of the listeners. */
    public boolean isSentBy(String host, int port) {
        for (Entry e : entries) {
            if (e.listener().isSentBy(host, port)) {
                return true;
            }
        }
        return false;
    }

    /** An IP literal's address (brackets allowed), or null for a name; never looks a name up. */
    static InetAddress literal(String host) {
        if (host == null || host.isEmpty()) {
            return null;
        }
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        byte[] v4 = LocalDomains.ipv4Literal(h);
        try {
            if (v4 != null) {
                return InetAddress.getByAddress(v4);
            }
            // a literal with a colon is parsed without any name lookup
            return h.indexOf(':') >= 0 ? InetAddress.getByName(h) : null;
        } catch (UnknownHostException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return listeners().toString();
    }
}
