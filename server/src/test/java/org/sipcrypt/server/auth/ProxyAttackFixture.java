package org.sipcrypt.server.auth;

import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.SipSink;
import org.sipcrypt.server.testing.TestServer;

/**
 * What the attack tests share: {@link #start} brings up a {@link ProxyUnderAttack} in a temporary
 * directory (closing the one before, if any), its parts named as the tests use them, and it is
 * closed after each test.
 * Threading: one test thread.
 */
abstract class ProxyAttackFixture {

    @TempDir
    Path dir;

    ProxyUnderAttack proxy;
    TestServer server;
    Attacker attacker;
    SipSink victim;

    /** Starts the proxy with {@code settings} (key, value pairs), provisioned, with attacker and victim. */
    void start(String... settings) throws Exception {
        start(Clock.systemUTC(), settings);
    }

    /** As {@link #start(String...)}, the server's SIP layer reading {@code clock}. */
    void start(Clock clock, String... settings) throws Exception {
        stop();
        proxy = ProxyUnderAttack.start(dir, clock, settings);
        server = proxy.server;
        attacker = proxy.attacker;
        victim = proxy.victim;
    }

    @AfterEach
    void stop() throws Exception {
        if (proxy != null) {
            ProxyUnderAttack closing = proxy;
            proxy = null;
            closing.close();
        }
    }
}
