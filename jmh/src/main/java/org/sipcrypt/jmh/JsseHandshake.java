package org.sipcrypt.jmh;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * One TLS 1.2 handshake between two new SunJSSE engines in memory, set up as the server's jsse
 * engine sets them up (one suite, the client checking the server's name as RFC 5922 asks), with the
 * time spent in each side's calls apart. A handshake counts as resumed when its session was made
 * before it started, as the server's handshake counter decides.
 * Threading: confined to the calling thread.
 */
final class JsseHandshake {

    final SSLEngine client;
    final SSLEngine server;
    final long serverNanos;
    final long clientNanos;
    final boolean resumed;

    private JsseHandshake(SSLEngine client, SSLEngine server, JsseEngines.Sides sides, boolean resumed) {
        this.client = client;
        this.server = server;
        this.serverNanos = sides.serverNanos;
        this.clientNanos = sides.clientNanos;
        this.resumed = resumed;
    }

    /**
     * Runs one handshake.
     *
     * @param needClientAuth whether the server requires a client certificate
     * @param keepSession    false invalidates the session afterwards on both sides, so the next
     *                       handshake is a full one
     */
    static JsseHandshake run(SSLContext clientContext, SSLContext serverContext, String jsseSuite,
                             boolean needClientAuth, boolean keepSession) throws SSLException {
        long startMillis = System.currentTimeMillis();
        JsseEngines.Sides sides = new JsseEngines.Sides();
        long t0 = System.nanoTime();
        SSLEngine server = serverContext.createSSLEngine();
        server.setUseClientMode(false);
        server.setNeedClientAuth(needClientAuth);
        server.setEnabledProtocols(new String[] {"TLSv1.2"});
        server.setEnabledCipherSuites(new String[] {jsseSuite});
        long t1 = System.nanoTime();
        SSLEngine client = clientContext.createSSLEngine(LabFixture.SERVER.getHostString(), LabFixture.SERVER.getPort());
        client.setUseClientMode(true);
        client.setEnabledProtocols(new String[] {"TLSv1.2"});
        client.setEnabledCipherSuites(new String[] {jsseSuite});
        SSLParameters p = client.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        client.setSSLParameters(p);
        long t2 = System.nanoTime();
        sides.serverNanos += t1 - t0;
        sides.clientNanos += t2 - t1;
        JsseEngines.handshake(client, server, sides);
        boolean resumed = server.getSession().getCreationTime() < startMillis;
        if (!keepSession) {
            client.getSession().invalidate();
            server.getSession().invalidate();
        }
        return new JsseHandshake(client, server, sides, resumed);
    }
}
