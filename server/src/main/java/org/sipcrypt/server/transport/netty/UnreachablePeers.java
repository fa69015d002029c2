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
 * The addresses an outgoing TCP or TLS connect to was refused by, or found no route to, within the
 * last {@code tcp.connectFailureHold}: a send to one of them fails at once instead of dialling it
 * again. Without it, every response a next hop retransmits towards a client whose connection has
 * closed (a UAS's 2xx, ten times in 32 s per call) costs a connect to a port nothing listens on;
 * under load those dials alone kept a lane's queue over the overload threshold. A connect that timed
 * out does not hold its address: a busy peer whose listen queue overflowed for a moment drops a SYN,
 * and holding it would turn that moment into a whole hold without calls to it (the lab's UAS at
 * 400 calls/s with a connection per call: 6,301 sends held after one timeout).
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
     * Holds {@code address} after a connect to it failed with {@code cause}, when the peer answered it
     * (refused, no route; not a timed-out connect, whose SYN a busy listen queue may have dropped, nor a
     * local shortage such as a port or the connection cap). Returns whether it is now held.
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
        // a refused connect is a ConnectException; so is Netty's timed-out one, which is no answer
        return cause instanceof ConnectException && !(cause instanceof ConnectTimeoutException)
                || cause instanceof NoRouteToHostException;
    }
}
