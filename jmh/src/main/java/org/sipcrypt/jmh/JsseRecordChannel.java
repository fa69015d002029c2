package org.sipcrypt.jmh;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * The record layer of the jsse engine: a client and a server {@link SSLEngine} of the JDK's
 * SunJSSE offering TLS 1.2 and exactly one suite, handshaken in memory. A record is protected by
 * {@code wrap} into a reused heap buffer and unprotected by {@code unwrap}, which is what Netty's
 * {@code SslHandler} does with the JDK provider on the server's jsse connections (its buffers are
 * pooled heap buffers too). The openssl rows run the same calls on Netty's {@code OpenSslEngine},
 * which is an {@code SSLEngine} over BoringSSL (Netty's {@code SslHandler} uses direct buffers with
 * it, a difference these heap-buffer figures do not show).
 * Threading: confined to one thread.
 */
final class JsseRecordChannel implements RecordChannel {

    private final SSLEngine client;
    private final SSLEngine server;
    private final ByteBuffer clientOut;
    private final ByteBuffer serverIn;

    JsseRecordChannel(SSLContext clientContext, SSLContext serverContext, String jsseSuite) throws IOException {
        this(clientContext.createSSLEngine(LabFixture.SERVER.getHostString(), LabFixture.SERVER.getPort()),
                serverContext.createSSLEngine(), jsseSuite);
    }

    /**
     * Two engines of any {@code SSLEngine} implementation (SunJSSE's, or Netty's OpenSslEngine on
     * the openssl rows), limited here to TLS 1.2 and {@code jsseSuite}, then handshaken.
     */
    JsseRecordChannel(SSLEngine client, SSLEngine server, String jsseSuite) throws IOException {
        this.client = client;
        this.server = server;
        server.setUseClientMode(false);
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
        JsseEngines.handshake(client, server, null);
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
