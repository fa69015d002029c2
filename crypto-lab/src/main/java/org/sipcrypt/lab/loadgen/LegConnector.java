package org.sipcrypt.lab.loadgen;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.sipcrypt.server.tls.JdkInsecureSuites;
import org.sipcrypt.server.tls.KeyMaterial;
import org.sipcrypt.server.tls.PemFiles;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;
import org.sipcrypt.server.transport.Transport;

/**
 * Opens and accepts the stream connections of one side of a leg: plain TCP, TLS on the server's
 * bc engine ({@link BcTlsSetup}: one per side, so sessions are kept per peer and resumed across
 * per-call connections, and its identity is the client certificate), or TLS on SunJSSE (an
 * {@link SSLContext} per side; with reuse off a fresh one per connection, so nothing is resumed).
 * Threading: thread-safe; {@link #connect} blocks for the TCP connect and the TLS handshake.
 */
public final class LegConnector {

    private static final int SESSION_CACHE_SIZE = 10_000;
    private static final Duration SESSION_LIFETIME = Duration.ofHours(1);

    private final Transport transport;
    private final LegCounters counters;
    private final Duration connectTimeout;
    private final TlsOptions tls;
    private final TlsChoices choices;
    private final BcTlsSetup bc;
    private final SSLContext jsse;
    private final KeyMaterial identity;

    /**
     * Resolves the TLS settings (for TLS) once for every connection of this side.
     *
     * @throws IllegalArgumentException a TLS setting is wrong, naming it
     * @throws IOException              a certificate, key or trust file cannot be read
     */
    public LegConnector(Transport transport, TlsOptions tls, LegCounters counters, Duration connectTimeout)
            throws IOException {
        this.transport = transport;
        this.counters = counters;
        this.connectTimeout = connectTimeout;
        this.tls = tls;
        if (transport != Transport.TLS) {
            this.choices = null;
            this.bc = null;
            this.jsse = null;
            this.identity = null;
            return;
        }
        if (tls == null) {
            throw new IllegalArgumentException("tls: no TLS options for a TLS leg");
        }
        CipherSuiteRegistry registry = CipherSuiteRegistry.load();
        TlsEngine engine = tls.engine() == null ? null : switch (tls.engine()) {
            case "bc" -> TlsEngine.BC;
            case "jsse" -> TlsEngine.JSSE;
            default -> throw new IllegalArgumentException("--tls-engine: \"" + tls.engine() + "\" (expected bc or jsse)");
        };
        if (tls.allowInsecure()) {
            JdkInsecureSuites.allow();
        }
        this.choices = TlsChoices.resolve(registry, tls.ciphers(), tls.allowInsecure(), engine, tls.crypto(), tls.versions());
        this.identity = tls.cert() == null ? null : KeyMaterial.read(tls.cert(), tls.key(), null);
        if (choices.engine() == TlsEngine.BC) {
            this.bc = BcTlsSetup.create(identity, tls.trust(), choices, registry, tls.clientCerts(), tls.sessionReuse(),
                    SESSION_CACHE_SIZE, SESSION_LIFETIME, true);
            this.jsse = null;
        } else {
            this.bc = null;
            this.jsse = sslContext(identity, tls.trust());
        }
    }

    /** The TLS engine the suites run on ({@code bc} or {@code jsse}), or null for TCP and UDP. */
    public String tlsEngine() {
        return choices == null ? null : choices.engine().configName();
    }

    /** The counters of this side. */
    public LegCounters counters() {
        return counters;
    }

    /** Opens a connection to {@code target} (TLS: the handshake is done when it returns). */
    public StreamConnection connect(InetSocketAddress target, StreamConnection.Listener listener) throws IOException {
        CountingSocket socket = new CountingSocket(counters);
        try {
            socket.setTcpNoDelay(true);
            socket.connect(target, (int) connectTimeout.toMillis());
            if (transport == Transport.TCP) {
                PlainStream s = new PlainStream(socket, counters, listener);
                s.startReader();
                return s;
            }
            if (bc != null) {
                BcTlsStream s = new BcTlsStream(socket, bc.newConnection(target), counters, listener);
                s.begin();
                s.awaitHandshake(connectTimeout);
                return s;
            }
            SSLContext ctx = tls.sessionReuse() ? jsse : sslContext(identity, tls.trust());
            SSLSocket ssl = (SSLSocket) ctx.getSocketFactory().createSocket(socket,
                    target.getAddress().getHostAddress(), target.getPort(), true);
            configure(ssl, false);
            ssl.setSoTimeout((int) connectTimeout.toMillis());
            JsseStream s = new JsseStream(ssl, counters, listener, false);
            s.handshake();
            ssl.setSoTimeout(0);
            s.startReader();
            return s;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** Takes over an accepted socket (TLS: the handshake runs on the connection's reader thread). */
    public StreamConnection accept(Socket accepted, StreamConnection.Listener listener) throws IOException {
        accepted.setTcpNoDelay(true);
        if (transport == Transport.TCP) {
            PlainStream s = new PlainStream(accepted, counters, listener);
            s.startReader();
            return s;
        }
        if (bc != null) {
            BcTlsStream s = new BcTlsStream(accepted, bc.newConnection(null), counters, listener);
            s.begin();
            return s;
        }
        SSLSocket ssl = (SSLSocket) jsse.getSocketFactory().createSocket(accepted,
                accepted.getInetAddress().getHostAddress(), accepted.getPort(), true);
        ssl.setUseClientMode(false);
        configure(ssl, true);
        JsseStream s = new JsseStream(ssl, counters, listener, true);
        s.startReader();
        return s;
    }

    /** A listening socket whose accepted sockets count their bytes into this side's counters. */
    public ServerSocket listen(InetSocketAddress address) throws IOException {
        ServerSocket server = new ServerSocket() {
            @Override
            public Socket accept() throws IOException {
                Socket s = new CountingSocket(counters);
                implAccept(s);
                return s;
            }
        };
        server.setReuseAddress(true);
        server.bind(address, 1024);
        return server;
    }

    private void configure(SSLSocket ssl, boolean server) {
        SSLParameters p = ssl.getSSLParameters();
        p.setCipherSuites(choices.suites().stream().map(CipherSuiteId::jsseName).toArray(String[]::new));
        p.setProtocols(choices.versions().toArray(new String[0]));
        if (server) {
            p.setNeedClientAuth(tls.clientCerts() == BcTlsSetup.ClientCertificates.NEED);
            p.setWantClientAuth(tls.clientCerts() == BcTlsSetup.ClientCertificates.WANT);
        } else {
            // the dialled address must be named by the server's certificate, as on the bc engine
            p.setEndpointIdentificationAlgorithm("HTTPS");
        }
        ssl.setSSLParameters(p);
    }

    private static SSLContext sslContext(KeyMaterial identity, java.nio.file.Path trust) throws IOException {
        try {
            KeyManagerFactory kmf = null;
            if (identity != null) {
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(null, null);
                ks.setKeyEntry("lab", identity.key(), new char[0], identity.chainArray());
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, new char[0]);
            }
            KeyStore anchors = null;
            if (trust != null) {
                anchors = KeyStore.getInstance("PKCS12");
                anchors.load(null, null);
                List<X509Certificate> cas = PemFiles.readCertificates(trust);
                for (int i = 0; i < cas.size(); i++) {
                    anchors.setCertificateEntry("ca-" + i, cas.get(i));
                }
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(anchors);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot build the JSSE context: " + e.getMessage(), e);
        }
    }
}
