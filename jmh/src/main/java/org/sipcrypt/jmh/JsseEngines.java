package org.sipcrypt.jmh;

import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * Drives a client and a server {@link SSLEngine} of SunJSSE through their handshake in memory:
 * each engine in turn runs its delegated tasks (inline, as Netty's {@code SslHandler} does by
 * default), wraps what it has to send and unwraps what it was sent, until both are done. Optionally
 * adds up the time spent in each side's own calls.
 * Threading: stateless; the engines are confined to the calling thread.
 */
final class JsseEngines {

    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    /** Nanoseconds spent in each side's calls during one handshake. Threading: confined to one thread. */
    static final class Sides {
        long serverNanos;
        long clientNanos;
    }

    private JsseEngines() {
    }

    /**
     * Runs the handshake of two engines already set up for client and server mode.
     *
     * @param sides where each side's time is added up; null for none
     * @throws SSLException a side failed, or the handshake stalled
     */
    static void handshake(SSLEngine client, SSLEngine server, Sides sides) throws SSLException {
        long t0 = System.nanoTime();
        client.beginHandshake();
        long t1 = System.nanoTime();
        server.beginHandshake();
        long t2 = System.nanoTime();
        if (sides != null) {
            sides.clientNanos += t1 - t0;
            sides.serverNanos += t2 - t1;
        }
        // SunJSSE wraps a handshake record only into room for a whole record of the largest size;
        // a flight of several records needs a multiple of that
        ByteBuffer toServer = ByteBuffer.allocate(4 * client.getSession().getPacketBufferSize());
        ByteBuffer toClient = ByteBuffer.allocate(4 * server.getSession().getPacketBufferSize());
        ByteBuffer scratch = ByteBuffer.allocate(client.getSession().getApplicationBufferSize());
        for (int round = 0; round < 100; round++) {
            long c0 = System.nanoTime();
            boolean moved = step(client, toClient, toServer, scratch);
            long c1 = System.nanoTime();
            moved |= step(server, toServer, toClient, scratch);
            long c2 = System.nanoTime();
            if (sides != null) {
                sides.clientNanos += c1 - c0;
                sides.serverNanos += c2 - c1;
            }
            if (done(client) && done(server) && toServer.position() == 0 && toClient.position() == 0) {
                return;
            }
            if (!moved) {
                break;
            }
        }
        throw new SSLException("jsse handshake stalled: client " + client.getHandshakeStatus() + ", server "
                + server.getHandshakeStatus());
    }

    private static boolean done(SSLEngine e) {
        HandshakeStatus s = e.getHandshakeStatus();
        return s == HandshakeStatus.NOT_HANDSHAKING || s == HandshakeStatus.FINISHED;
    }

    /** Lets one engine do what it can: run tasks, wrap into {@code out}, unwrap from {@code in}; true if anything moved. */
    private static boolean step(SSLEngine e, ByteBuffer in, ByteBuffer out, ByteBuffer scratch) throws SSLException {
        boolean moved = false;
        while (true) {
            switch (e.getHandshakeStatus()) {
                case NEED_TASK -> {
                    for (Runnable task = e.getDelegatedTask(); task != null; task = e.getDelegatedTask()) {
                        task.run();
                    }
                    moved = true;
                }
                case NEED_WRAP -> {
                    SSLEngineResult r = e.wrap(NOTHING, out);
                    if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                        return moved;
                    }
                    if (r.getStatus() != SSLEngineResult.Status.OK) {
                        throw new SSLException("jsse handshake wrap: " + r);
                    }
                    if (r.bytesProduced() == 0 && r.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
                        return moved;
                    }
                    moved = true;
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    in.flip();
                    scratch.clear();
                    SSLEngineResult r = e.unwrap(in, scratch);
                    in.compact();
                    if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                        return moved;
                    }
                    if (r.getStatus() != SSLEngineResult.Status.OK) {
                        throw new SSLException("jsse handshake unwrap: " + r);
                    }
                    moved = true;
                }
                default -> {
                    return moved;
                }
            }
        }
    }
}
