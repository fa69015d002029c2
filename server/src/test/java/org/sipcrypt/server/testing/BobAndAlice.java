package org.sipcrypt.server.testing;

import java.nio.file.Path;
import org.sipcrypt.server.transport.Transport;

/**
 * The set-up most call tests start from: the real server with the given settings, bob registered
 * at it over his transport, and alice, who calls him over hers; closing it closes alice, bob and
 * then the server (which checks that no connection is left open).
 * Threading: one test thread.
 */
public record BobAndAlice(TestServer server, TestUa bob, TestUa alice) implements AutoCloseable {

    /**
     * Starts the server in {@code dir} with {@code settings} (key, value pairs), then bob over
     * {@code bobOver}, registered at the server's listener of that transport, then alice over
     * {@code aliceOver}.
     */
    public static BobAndAlice start(Path dir, Transport bobOver, Transport aliceOver, String... settings)
            throws Exception {
        TestServer server = TestServer.start(dir, settings);
        TestUa bob = null;
        try {
            bob = TestUa.start("bob", bobOver);
            bob.registerAt(server.address(bobOver));
            return new BobAndAlice(server, bob, TestUa.start("alice", aliceOver));
        } catch (Exception | Error e) {
            if (bob != null) {
                bob.close();
            }
            server.close();
            throw e;
        }
    }

    @Override
    public void close() {
        try {
            alice.close();
            bob.close();
        } finally {
            server.close();
        }
    }
}
