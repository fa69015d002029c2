package org.sipcrypt.server.auth;

import java.nio.file.Path;
import java.time.Clock;
import org.sipcrypt.server.testing.SipSink;
import org.sipcrypt.server.testing.TestServer;

/**
 * The set-up the attack tests share: the real server started with the given settings and the
 * subscribers alice, bob and carol, an {@link Attacker} socket talking to it, and a victim
 * {@link SipSink} on 127.0.0.2; closing it closes the three in reverse order.
 * Threading: one test thread.
 */
final class ProxyUnderAttack implements AutoCloseable {

    final TestServer server;
    final Attacker attacker;
    final SipSink victim;

    private ProxyUnderAttack(TestServer server, Attacker attacker, SipSink victim) {
        this.server = server;
        this.attacker = attacker;
        this.victim = victim;
    }

    /** Starts the server in {@code dir} with {@code settings} (key, value pairs), provisioned, with attacker and victim. */
    static ProxyUnderAttack start(Path dir, String... settings) throws Exception {
        return start(dir, Clock.systemUTC(), settings);
    }

    /** As {@link #start(Path, String...)}, the server's SIP layer reading {@code clock}. */
    static ProxyUnderAttack start(Path dir, Clock clock, String... settings) throws Exception {
        TestServer server = TestServer.start(dir, clock, settings);
        Attacker attacker = null;
        try {
            DigestRegistrarIT.provision(server, server.config().effectiveRealm());
            attacker = new Attacker(server);
            return new ProxyUnderAttack(server, attacker, SipSink.start());
        } catch (Exception | Error e) {
            if (attacker != null) {
                attacker.close();
            }
            server.close();
            throw e;
        }
    }

    /** Proves by a marker that nothing the attacker sent with {@code callId} reached the victim. */
    void assertNothingReachedTheVictim(String callId, String target, String extra) throws Exception {
        attacker.assertOnlyMarkerReached(victim, 0, callId, target, extra);
    }

    @Override
    public void close() throws Exception {
        try {
            victim.close();
            attacker.close();
        } finally {
            server.close();
        }
    }
}
