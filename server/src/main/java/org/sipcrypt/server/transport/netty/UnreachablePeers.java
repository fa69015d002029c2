package org.sipcrypt.server.transport.netty;

import io.netty.channel.ConnectTimeoutException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The addresses an outgoing TCP or TLS connect to failed within the last {@code tcp.connectFailureHold}
 * (refused, timed out, no route): a send to one of them fails at once instead of dialling it again.
 * Without it, every response a next hop retransmits towards a client whose connection has closed
 * (a UAS's 2xx, ten times in 32 s per call) costs a connect to a port nothing listens on, each waited
 * for by a SIP lane; under load those dials alone kept a lane's queue over the overload threshold.
 * At most {@link #MAX_ADDRESSES} addresses are held; when that many are, lapsed ones are swept out
 * and, if none has lapsed, the new one is not held (it is dialled again, as without the hold).
 * Threading: thread-safe; never blocks.
 */
final class UnreachablePeers {

    /** Most addresses held at once. */
    static final int MAX_ADDRESSES = 4096;

    private final long holdNanos;
    private final LongSupplier nanoClock;
    private final Map<InetSocketAddress, Long> heldUntil = new ConcurrentHashMap<>();

    /** @param hold how long a failed address is held; zero holds none */
    UnreachablePeers(Duration hold) {
        this(hold, System::nanoTime);
    }

    UnreachablePeers(Duration hold, LongSupplier nanoClock) {
        this.holdNanos = hold.toNanos();
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    /** Whether {@code address} is held: a connect to it failed less than the hold ago. */
    boolean held(InetSocketAddress address) {
        if (heldUntil.isEmpty()) {
            return false;
        }
        Long until = heldUntil.get(address);
        if (until == null) {
            return false;
        }
        if (nanoClock.getAsLong() - until < 0) {
            return true;
        }
        heldUntil.remove(address, until);
        return false;
    }

    /**
     * Holds {@code address} after a connect to it failed with {@code cause}, when the failure is the
     * peer's (refused, timed out, no route; not a local shortage such as a port or the connection
     * cap). Returns whether it is now held.
     */
    boolean failed(InetSocketAddress address, Throwable cause) {
        if (holdNanos == 0 || !peersFault(cause)) {
            return false;
        }
        long now = nanoClock.getAsLong();
        if (heldUntil.size() >= MAX_ADDRESSES) {
            heldUntil.values().removeIf(until -> now - until >= 0);
            if (heldUntil.size() >= MAX_ADDRESSES) {
                return false;
            }
        }
        heldUntil.put(address, now + holdNanos);
        return true;
    }

    /** Addresses held or lapsed but not yet swept out. */
    int size() {
        return heldUntil.size();
    }

    private static boolean peersFault(Throwable cause) {
        // Netty's refused and timed-out connects are both ConnectExceptions
        return cause instanceof ConnectException || cause instanceof ConnectTimeoutException
                || cause instanceof NoRouteToHostException;
    }
}
