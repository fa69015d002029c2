package org.sipcrypt.jmh;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.sipcrypt.server.tls.bc.BcTlsConnection;
import org.sipcrypt.server.tls.bc.BcTlsSetup;

/**
 * One TLS handshake between the server's bc client and server connections in memory: each side's
 * flight is handed to the other whole, as the transport hands over what it read, until neither has
 * anything to send. The time spent inside each side's own calls ({@code newConnection},
 * {@code start}, {@code offer}, {@code takeOutput}) is added up apart, so a handshake's cost splits
 * into the server's share and the client's; the two {@code System.nanoTime} reads around each call
 * (some tens of nanoseconds) are noise next to a handshake's milliseconds.
 * Threading: confined to the calling thread.
 */
final class BcHandshake {

    final BcTlsConnection client;
    final BcTlsConnection server;
    final long serverNanos;
    final long clientNanos;

    private BcHandshake(BcTlsConnection client, BcTlsConnection server, long serverNanos, long clientNanos) {
        this.client = client;
        this.server = server;
        this.serverNanos = serverNanos;
        this.clientNanos = clientNanos;
    }

    /**
     * Connects a new client of {@code clientSetup} to a new server of {@code serverSetup}.
     *
     * @throws IOException                a side failed the handshake (the alert says why)
     * @throws IllegalStateException      the flights ran out before both sides completed
     */
    static BcHandshake run(BcTlsSetup clientSetup, BcTlsSetup serverSetup, InetSocketAddress dialled)
            throws IOException {
        long t0 = System.nanoTime();
        BcTlsConnection server = serverSetup.newConnection(null);
        server.start();
        long t1 = System.nanoTime();
        BcTlsConnection client = clientSetup.newConnection(dialled);
        client.start();
        byte[] flight = client.takeOutput();
        long t2 = System.nanoTime();
        long serverNanos = t1 - t0;
        long clientNanos = t2 - t1;
        try {
            while (flight != null) {
                long s0 = System.nanoTime();
                server.offer(flight, 0, flight.length);
                byte[] answer = server.takeOutput();
                long s1 = System.nanoTime();
                serverNanos += s1 - s0;
                if (answer == null) {
                    break;
                }
                client.offer(answer, 0, answer.length);
                flight = client.takeOutput();
                clientNanos += System.nanoTime() - s1;
            }
        } catch (IOException e) {
            throw new IOException("handshake failed: client " + client.lastAlert() + "; server " + server.lastAlert(), e);
        }
        if (!client.handshakeComplete() || !server.handshakeComplete()) {
            throw new IllegalStateException("handshake did not complete: client " + client.lastAlert()
                    + "; server " + server.lastAlert());
        }
        return new BcHandshake(client, server, serverNanos, clientNanos);
    }
}
