package org.sipcrypt.jmh;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * The record layer of the jsse engine: a client and a server {@link SSLEngine} of the JDK's
 * SunJSSE offering TLS 1.2 and exactly one suite, handshaken in memory. A record is protected by
 * {@code wrap} into a reused heap buffer and unprotected by {@code unwrap}, which is what Netty's
 * {@code SslHandler} does with the JDK provider on the server's jsse connections (its buffers are
 * pooled heap buffers too).
 * Threading: confined to one thread.
 */
final class JsseRecordChannel implements RecordChannel {

    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    private final SSLEngine client;
    private final SSLEngine server;
    private final ByteBuffer clientOut;
    private final ByteBuffer serverIn;

    JsseRecordChannel(SSLContext clientContext, SSLContext serverContext, String jsseSuite) throws IOException {
        server = serverContext.createSSLEngine();
        server.setUseClientMode(false);
        client = clientContext.createSSLEngine(LabFixture.SERVER.getHostString(), LabFixture.SERVER.getPort());
        client.setUseClientMode(true);
        for (SSLEngine e : new SSLEngine[] {client, server}) {
            e.setEnabledProtocols(new String[] {"TLSv1.2"});
            e.setEnabledCipherSuites(new String[] {jsseSuite});
        }
        SSLParameters p = client.getSSLParameters();
        // as the server's jsse client does (RFC 5922 §7.2 with the address dialled)
        p.setEndpointIdentificationAlgorithm("HTTPS");
        client.setSSLParameters(p);
        clientOut = ByteBuffer.allocate(client.getSession().getPacketBufferSize());
        serverIn = ByteBuffer.allocate(server.getSession().getApplicationBufferSize());
        handshake();
        String negotiated = server.getSession().getCipherSuite();
        if (!negotiated.equals(jsseSuite)) {
            throw new IllegalStateException("jsse negotiated " + negotiated + ", not " + jsseSuite);
        }
    }

    private void handshake() throws SSLException {
        client.beginHandshake();
        server.beginHandshake();
        // SunJSSE wraps a handshake record only into room for a whole record of the largest size;
        // a flight of several records needs a multiple of that
        ByteBuffer toServer = ByteBuffer.allocate(4 * client.getSession().getPacketBufferSize());
        ByteBuffer toClient = ByteBuffer.allocate(4 * server.getSession().getPacketBufferSize());
        ByteBuffer scratch = ByteBuffer.allocate(client.getSession().getApplicationBufferSize());
        for (int round = 0; round < 100; round++) {
            boolean moved = step(client, toClient, toServer, scratch) | step(server, toServer, toClient, scratch);
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

    @Override
    public int protect(byte[] payload) throws IOException {
        clientOut.clear();
        SSLEngineResult r = client.wrap(ByteBuffer.wrap(payload), clientOut);
        if (r.getStatus() != SSLEngineResult.Status.OK || r.bytesConsumed() != payload.length) {
            throw new IllegalStateException("jsse wrap of " + payload.length + " bytes: " + r);
        }
        return r.bytesProduced();
    }

    @Override
    public byte[] protectToArray(byte[] payload) throws IOException {
        int n = protect(payload);
        return Arrays.copyOf(clientOut.array(), n);
    }

    @Override
    public int unprotect(byte[] record) throws IOException {
        serverIn.clear();
        SSLEngineResult r = server.unwrap(ByteBuffer.wrap(record), serverIn);
        if (r.getStatus() != SSLEngineResult.Status.OK || r.bytesConsumed() != record.length || r.bytesProduced() == 0) {
            throw new IllegalStateException("jsse unwrap of a record of " + record.length + " bytes: " + r);
        }
        return r.bytesProduced();
    }

    @Override
    public byte[] lastPlaintext() {
        return Arrays.copyOf(serverIn.array(), serverIn.position());
    }

    @Override
    public String negotiatedSuite() {
        return server.getSession().getCipherSuite();
    }
}
