package org.sipcrypt.server.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.ConnectTimeoutException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The hold on addresses a connect to them failed: how long, for which failures, and its bound. */
class UnreachablePeersTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final UnreachablePeers peers = new UnreachablePeers(Duration.ofSeconds(10), now::get);

    private static InetSocketAddress address(int port) {
        return new InetSocketAddress("127.0.0.1", port);
    }

    @Test
    void aRefusedAddressIsHeldForTheHoldAndThenDialledAgain() {
        assertFalse(peers.held(address(5060)));
        assertTrue(peers.failed(address(5060), new ConnectException("Connection refused")));
        assertTrue(peers.held(address(5060)));
        assertFalse(peers.held(address(5061)), "another port of the same host is not held");
        now.addAndGet(Duration.ofSeconds(10).toNanos() - 1);
        assertTrue(peers.held(address(5060)));
        now.incrementAndGet();
        assertFalse(peers.held(address(5060)), "lapsed at the hold");
        assertEquals(0, peers.size(), "a lapsed address is dropped when next looked up");
    }

    @Test
    void noRouteIsThePeersButTimeoutsAndLocalShortagesAreNot() {
        // a timed-out connect may be a busy peer's overflowing listen queue: no hold
        assertFalse(peers.failed(address(1), new ConnectTimeoutException("connection timed out")));
        assertTrue(peers.failed(address(2), new NoRouteToHostException("no route")));
        assertFalse(peers.failed(address(3), new BindException("Cannot assign requested address")));
        assertFalse(peers.failed(address(4), new java.io.IOException("connection cap of 2 reached")));
        assertFalse(peers.held(address(1)));
        assertTrue(peers.held(address(2)));
        assertFalse(peers.held(address(3)));
        assertFalse(peers.held(address(4)));
    }

    @Test
    void aZeroHoldHoldsNothing() {
        UnreachablePeers none = new UnreachablePeers(Duration.ZERO, now::get);
        assertFalse(none.failed(address(5060), new ConnectException("Connection refused")));
        assertFalse(none.held(address(5060)));
    }

    @Test
    void atTheBoundLapsedAddressesMakeRoomAndOtherwiseTheNewOneIsNotHeld() {
        for (int i = 0; i < UnreachablePeers.MAX_ADDRESSES; i++) {
            assertTrue(peers.failed(address(10_000 + i), new ConnectException("refused")));
        }
        assertFalse(peers.failed(address(9_999), new ConnectException("refused")), "full, nothing lapsed");
        assertFalse(peers.held(address(9_999)));
        assertEquals(UnreachablePeers.MAX_ADDRESSES, peers.size());

        now.addAndGet(Duration.ofSeconds(10).toNanos());
        assertTrue(peers.failed(address(9_999), new ConnectException("refused")), "the lapsed ones swept out");
        assertEquals(1, peers.size());
        assertTrue(peers.held(address(9_999)));
    }
}
