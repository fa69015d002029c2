package org.sipcrypt.lab.loadgen;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import org.sipcrypt.server.tls.JdkInsecureSuites;
import org.sipcrypt.server.tls.KeyExchangeGroup;
import org.sipcrypt.server.tls.KeyMaterial;
import org.sipcrypt.server.tls.PemFiles;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.netty.tls.BcTlsHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens and accepts the stream connections of one side of a leg as Netty channels on the event loops
 * of that side's role ({@link LabEventLoops}: the generator's or the UAS's): plain TCP, TLS on the server's bc engine ({@link BcTlsSetup}: one per side, so
 * sessions are kept per peer and resumed across per-call connections, and its identity is the client
 * certificate; driven by the server's {@link BcTlsHandler}), or TLS on SunJSSE in Netty's {@link SslHandler}
 * (an {@link SSLContext} per side; with reuse off a client engine is made without its peer, so SunJSSE
 * neither offers nor keeps a session, and the server's certificate is checked to name the dialled
 * address after the handshake). A TLS connection it opens measures its ClientHello and the server's
 * first flight below TLS ({@link TlsFlightsHandler}). With a one-way delay, each connection's
 * pipeline begins with the lab delay stage ({@link OneWayDelayHandler}). Chosen key-exchange groups ({@link TlsOptions#groups()})
 * put a side on the bc engine, which offers exactly them, unless it is told openssl. A connecting side
 * may also run on the openssl engine (Netty's OpenSslEngine on BoringSSL, {@code --tls-engine openssl}),
 * the lab's client that resumes by ticket: an SSL context per side holding exactly the chosen groups
 * and, with reuse on, the last session of each peer (host and port) with TLS 1.2 tickets turned on
 * for that context alone; BoringSSL offers its three TLS 1.3 suites whatever the list says. SIP over WebSocket (RFC 7118) is a framing
 * variant of the same legs: {@code ws} is TCP and {@code wss} the TLS stage above, each followed by
 * Netty's WebSocket client (upgrade with subprotocol {@code sip}, no Origin header, as a client that
 * is not a browser) and {@link WebSocketFrameHandler}, one SIP message per text frame; a WebSocket
 * side only connects (a WebSocket client accepts no connections, RFC 7118 §5).
 * Threading: thread-safe; {@link #connect} never blocks, {@link #connectNow} and {@link #listen} block
 * (never call them on an event loop).
 */
public final class LegConnector {

    /**
     * The listen queue of the UAS's listeners: with a connection per call at hundreds of calls/s, a
     * lab JVM pausing for a collection or busy compiling must not make the kernel drop the server's
     * SYNs (Linux caps it at {@code net.core.somaxconn}, 4096 on current kernels).
     */
    static final int LISTEN_BACKLOG = 4096;

    private static final Logger log = LoggerFactory.getLogger(LegConnector.class);
    private static final int SESSION_CACHE_SIZE = 10_000;
    private static final Duration SESSION_LIFETIME = Duration.ofHours(1);

    /** The largest WebSocket message taken, as the largest SIP message of a stream. */
    private static final int MAX_WS_MESSAGE_BYTES = StreamConnection.MAX_MESSAGE_BYTES;
    /** The upgrade's response headers are bounded as the server bounds its requests'. */
    private static final int MAX_UPGRADE_RESPONSE_BYTES = 8192;

    private final Transport transport;
    private final LegCounters counters;
    private final Duration connectTimeout;
    private final Duration oneWayDelay;
    private final TlsOptions tls;
    private final TlsChoices choices;
    private final BcTlsSetup bc;
    private final SSLContext jsse;
    /** The client context on the openssl engine, or null. */
    private final SslContext openssl;
    private final KeyMaterial identity;
    private final ByteCountingHandler counting;
    private final EventLoopGroup loops;
    private final boolean flushPerRead;
    private final Bootstrap client;

    /**
     * Resolves the TLS settings (for TLS) once for every connection of this side.
     *
     * @param loops the event loops of this side's role, which carry its connections and listeners
     * @param oneWayDelay each connection's one-way delay ({@link OneWayDelayHandler}), zero for none
     * @param flushPerRead whether what a connection writes while it handles a read leaves in one socket
     *                     write once the read is handled (the generator's: the ACK and the BYE that
     *                     answer a 200 at once), rather than a write per message
     * @throws IllegalArgumentException a TLS setting is wrong, naming it
     * @throws IOException              a certificate, key or trust file cannot be read
     */
    LegConnector(Transport transport, TlsOptions tls, LegCounters counters, Duration connectTimeout,
                 EventLoopGroup loops, Duration oneWayDelay, boolean flushPerRead) throws IOException {
        if (oneWayDelay.isNegative()) {
            throw new IllegalArgumentException("--one-way-delay: " + oneWayDelay + " (expected 0 or more)");
        }
        this.oneWayDelay = oneWayDelay;
        this.transport = transport;
        this.loops = Objects.requireNonNull(loops, "loops");
        this.flushPerRead = flushPerRead;
        this.counters = counters;
        this.connectTimeout = connectTimeout;
        this.tls = tls;
        this.counting = new ByteCountingHandler(counters);
        this.client = new Bootstrap()
                .group(loops)
                .channel(LabEventLoops.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis());
        if (!transport.secure()) {
            this.choices = null;
            this.bc = null;
            this.jsse = null;
            this.openssl = null;
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
            case "openssl" -> TlsEngine.OPENSSL;
            default -> throw new IllegalArgumentException("--tls-engine: \"" + tls.engine()
                    + "\" (expected bc, jsse or openssl)");
        };
        if (!tls.groups().isEmpty()) {
            // SunJSSE on Java 17 takes groups only JVM-wide (jdk.tls.namedGroups), which would change
            // every other leg of this process: chosen groups are offered by the bc engine, as exactly
            // those, or by the openssl engine when told, whose context holds them
            if (engine == TlsEngine.JSSE) {
                throw new IllegalArgumentException("--tls-groups: the lab offers chosen groups on the bc and openssl"
                        + " engines only (expected --tls-engine bc, openssl or none)");
            }
            engine = engine == null ? TlsEngine.BC : engine;
        }
        if (tls.allowInsecure()) {
            JdkInsecureSuites.allow();
        }
        List<String> ciphers = tls.ciphers();
        Map<TlsEngine, String> unavailable = Map.of(TlsEngine.OPENSSL, "the lab's load generator picks bc or jsse"
                + " (--tls-engine openssl names it)");
        if (engine == TlsEngine.OPENSSL) {
            unavailable = OpenSsl.isAvailable() ? Map.of() : Map.of(TlsEngine.OPENSSL,
                    "BoringSSL (netty-tcnative-boringssl-static, linux-x86_64) did not load: " + OpenSsl.unavailabilityCause());
            if (tls.versions().stream().anyMatch(v -> v.trim().endsWith("1.3"))) {
                // BoringSSL offers its TLS 1.3 suites whatever it is told: say so to TlsChoices
                LinkedHashSet<String> widened = new LinkedHashSet<>(ciphers);
                widened.addAll(TlsChoices.BORINGSSL_TLS13);
                ciphers = new ArrayList<>(widened);
            }
        }
        // the load generator's legs speak bc or jsse when it picks; openssl when told
        this.choices = TlsChoices.resolve(registry, ciphers, tls.allowInsecure(), engine, tls.crypto(), tls.versions(),
                tls.groups(), unavailable);
        if (choices.engine() == TlsEngine.JSSE) {
            allowStaticRsa(choices.suites());
        }
        this.identity = tls.cert() == null ? null : KeyMaterial.read(tls.cert(), tls.key(), null);
        if (choices.engine() == TlsEngine.BC) {
            this.bc = BcTlsSetup.create(identity, tls.trust(), choices, registry, tls.clientCerts(), tls.sessionReuse(),
                    SESSION_CACHE_SIZE, SESSION_LIFETIME, true);
            this.jsse = null;
            this.openssl = null;
        } else if (choices.engine() == TlsEngine.OPENSSL) {
            this.bc = null;
            this.jsse = null;
            this.openssl = openSslClient(identity, tls.trust(), choices, tls.sessionReuse());
        } else {
            this.bc = null;
            this.jsse = sslContext(identity, tls.trust());
            this.openssl = null;
        }
    }

    /**
     * Takes the JDK's refusal of the static-RSA suites among {@code suites} ({@code TLS_RSA_*} in
     * {@code jdk.tls.disabledAlgorithms} on Debian's OpenJDK 17.0.21) out of this JVM, with one warning,
     * as the server's jsse engine does: the lab's default handshake is RSA key exchange. It takes
     * effect only before this JVM's first SunJSSE use; the compare command calls it before its first study.
     */
    public static void allowStaticRsa(List<CipherSuiteId> suites) {
        List<String> lifted = JdkInsecureSuites.allowStaticRsaSuites(suites);
        if (!lifted.isEmpty()) {
            log.warn("jdk.tls.disabledAlgorithms entries {} lifted in this JVM for the static-RSA suites {}"
                    + " (legacy: no forward secrecy; lab only)", lifted, JdkInsecureSuites.staticRsaNames(suites));
        }
    }

    /**
     * The client context on the openssl engine: these suites, versions and groups, the lab's trust
     * anchors and its client certificate. With reuse on, it keeps the last session of each peer and
     * offers it (a TLS 1.2 session ID or ticket, a TLS 1.3 PSK); Netty turns TLS 1.2 tickets on for
     * its clients only JVM-wide ({@code jdk.tls.client.enableSessionTicketExtension}), so setting no
     * keys on this context's sessions clears its {@code SSL_OP_NO_TICKET} alone. A client holds no
     * ticket keys: the server's encrypt its tickets.
     */
    private static SslContext openSslClient(KeyMaterial identity, java.nio.file.Path trust, TlsChoices choices,
                                            boolean reuse) throws IOException {
        try {
            SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL)
                    .protocols(choices.versions().toArray(new String[0]))
                    .ciphers(choices.suites().stream().map(CipherSuiteId::name).toList())
                    .sessionCacheSize(SESSION_CACHE_SIZE).sessionTimeout(SESSION_LIFETIME.toSeconds())
                    .trustManager(trustManagers(trust));
            if (identity != null) {
                b.keyManager(identity.key(), identity.chainArray());
            }
            if (!choices.groups().isEmpty()) {
                b.option(OpenSslContextOption.GROUPS,
                        choices.groups().stream().map(KeyExchangeGroup::openSslName).toArray(String[]::new));
            }
            SslContext ctx = b.build();
            OpenSslSessionContext sessions = (OpenSslSessionContext) ctx.sessionContext();
            sessions.setSessionCacheEnabled(reuse);
            if (reuse) {
                sessions.setTicketKeys();
            }
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot build the OpenSSL client context: " + e.getMessage(), e);
        }
    }

    /** The TLS engine the suites run on ({@code bc}, {@code jsse} or {@code openssl}), or null for TCP and UDP. */
    public String tlsEngine() {
        return choices == null ? null : choices.engine().configName();
    }

    /** The counters of this side. */
    public LegCounters counters() {
        return counters;
    }

    /**
     * Opens a connection to {@code target} without blocking: the future completes, on the
     * connection's event loop, when it is ready for SIP (TLS: the handshake is done), or fails when
     * the connect or the handshake fails or takes longer than the connect timeout.
     */
    public CompletableFuture<StreamConnection> connect(InetSocketAddress target, StreamConnection.Listener listener) {
        CompletableFuture<StreamConnection> ready = new CompletableFuture<>();
        Bootstrap b = client.clone().handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                try {
                    pipeline(ch, target, listener, ready);
                } catch (RuntimeException e) {
                    // Netty closes the channel; the call must hear why
                    ready.completeExceptionally(e);
                    throw e;
                }
            }
        });
        b.connect(target).addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                ready.completeExceptionally(f.cause());
            }
        });
        return ready;
    }

    /**
     * Opens a connection and waits until it is ready; for a persistent connection, never on an event
     * loop.
     */
    public StreamConnection connectNow(InetSocketAddress target, StreamConnection.Listener listener)
            throws IOException {
        try {
            return connect(target, listener).get(connectTimeout.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to " + target, e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof IOException io ? io : new IOException("connect to " + target + ": " + c, c);
        } catch (TimeoutException e) {
            throw new IOException("connect to " + target + " not done after " + connectTimeout.multipliedBy(2), e);
        }
    }

    /**
     * Listens on {@code address}; each accepted connection gets this side's pipeline (TLS: the
     * server side of the handshake) and is handed to {@code accepted} on its event loop.
     *
     * @return the listening channel (its local address is the bound one)
     */
    public Channel listen(InetSocketAddress address, StreamConnection.Listener listener,
                          Consumer<StreamConnection> accepted) throws IOException {
        if (transport.webSocket()) {
            throw new IllegalArgumentException(transport.configName() + ": the lab's WebSocket side only connects"
                    + " (a WebSocket client accepts no connections, RFC 7118 §5)");
        }
        if (openssl != null) {
            throw new IllegalArgumentException("--tls-engine openssl: the lab runs the openssl engine as a client only");
        }
        ServerBootstrap b = new ServerBootstrap()
                .group(loops)
                .channel(LabEventLoops.serverSocketChannel())
                .option(ChannelOption.SO_BACKLOG, LISTEN_BACKLOG)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        accepted.accept(pipeline(ch, null, listener, new CompletableFuture<>()));
                    }
                });
        ChannelFuture bound = b.bind(address).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new IOException("cannot listen on " + address + ": " + bound.cause(), bound.cause());
        }
        return bound.channel();
    }

    /** The pipeline of one connection; {@code target} null for an accepted one. */
    private StreamConnection pipeline(Channel ch, InetSocketAddress target, StreamConnection.Listener listener,
                                      CompletableFuture<StreamConnection> ready) {
        boolean isTls = transport.secure();
        StreamConnection c = new StreamConnection(ch, transport);
        if (!oneWayDelay.isZero()) {
            // at the socket end, below TLS: handshake flights are held too
            ch.pipeline().addLast("delay", new OneWayDelayHandler(oneWayDelay, target != null, counters));
        }
        ch.pipeline().addLast("count", counting);
        if (flushPerRead) {
            // below TLS: each message still gets its own records, only the socket write waits for the
            // end of the read; writes made outside a read (the schedule's INVITEs) leave at once
            ch.pipeline().addLast("flush", new FlushConsolidationHandler(
                    FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, false));
        }
        if (isTls && target != null) {
            // below TLS, as the bytes cross the socket: the ClientHello and the server's first flight
            ch.pipeline().addLast("flights", new TlsFlightsHandler());
        }
        String peerName = null;
        if (isTls && bc != null) {
            ch.pipeline().addLast("tls", BcTlsHandler.onEventLoop(bc.newConnection(target), connectTimeout));
        } else if (isTls && openssl != null) {
            // the peer's host and port key the context's session cache (with reuse off it keeps none)
            SslHandler ssl = openssl.newHandler(ch.alloc(), target.getAddress().getHostAddress(), target.getPort());
            configure(ssl.engine(), false, true);
            ssl.setHandshakeTimeoutMillis(connectTimeout.toMillis());
            ch.pipeline().addLast("tls", ssl);
        } else if (isTls) {
            SSLEngine engine;
            String host = target == null ? null : target.getAddress().getHostAddress();
            if (target != null && tls.sessionReuse()) {
                // the peer's host and port key SunJSSE's session cache: sessions are offered and kept
                engine = jsse.createSSLEngine(host, target.getPort());
                engine.setUseClientMode(true);
                configure(engine, false, true);
            } else if (target != null) {
                // no peer, no session offered or kept; the server's name is checked after the handshake
                engine = jsse.createSSLEngine();
                engine.setUseClientMode(true);
                configure(engine, false, false);
                peerName = host;
            } else {
                engine = jsse.createSSLEngine();
                engine.setUseClientMode(false);
                configure(engine, true, false);
            }
            SslHandler ssl = new SslHandler(engine);
            ssl.setHandshakeTimeoutMillis(connectTimeout.toMillis());
            ch.pipeline().addLast("tls", ssl);
        }
        if (transport.webSocket()) {
            webSocket(ch, target);
        }
        ch.pipeline().addLast("sip", new SipStreamHandler(c, isTls, transport.webSocket(), peerName, counters,
                listener, ready));
        return c;
    }

    /**
     * The WebSocket client stage above TCP or TLS: the upgrade (RFC 6455 §4.1) with subprotocol
     * {@code sip} (RFC 7118 §4.1) and without an Origin header, within the connect timeout, then one
     * SIP message per text frame.
     */
    private void webSocket(Channel ch, InetSocketAddress target) {
        URI uri = URI.create((transport == Transport.WSS ? "wss" : "ws") + "://"
                + UacOptions.hostOf(target) + ":" + target.getPort() + "/");
        WebSocketClientProtocolConfig config = WebSocketClientProtocolConfig.newBuilder()
                .webSocketUri(uri)
                .subprotocol("sip")
                .generateOriginHeader(false)
                .maxFramePayloadLength(MAX_WS_MESSAGE_BYTES)
                .handshakeTimeoutMillis(connectTimeout.toMillis())
                .dropPongFrames(true)
                .build();
        ch.pipeline().addLast("http", new HttpClientCodec());
        ch.pipeline().addLast("http-aggregator", new HttpObjectAggregator(MAX_UPGRADE_RESPONSE_BYTES));
        ch.pipeline().addLast("ws", new WebSocketClientProtocolHandler(config));
        ch.pipeline().addLast("ws-aggregator", new WebSocketFrameAggregator(MAX_WS_MESSAGE_BYTES));
        ch.pipeline().addLast("ws-frames", WebSocketFrameHandler.INSTANCE);
    }

    private void configure(SSLEngine engine, boolean server, boolean identifyEndpoint) {
        SSLParameters p = engine.getSSLParameters();
        if (openssl == null) {
            // the openssl context holds its suites and versions already, by OpenSSL's names
            p.setCipherSuites(choices.suites().stream().map(CipherSuiteId::jsseName).toArray(String[]::new));
            p.setProtocols(choices.versions().toArray(new String[0]));
        }
        if (server) {
            p.setNeedClientAuth(tls.clientCerts() == BcTlsSetup.ClientCertificates.NEED);
            p.setWantClientAuth(tls.clientCerts() == BcTlsSetup.ClientCertificates.WANT);
        } else if (identifyEndpoint) {
            // the dialled address must be named by the server's certificate, as on the bc engine
            p.setEndpointIdentificationAlgorithm("HTTPS");
        }
        engine.setSSLParameters(p);
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
            TrustManagerFactory tmf = trustManagers(trust);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot build the JSSE context: " + e.getMessage(), e);
        }
    }

    /** The JDK's trust managers over the PEM anchors of {@code trust}, or over the JDK's trust store when null. */
    private static TrustManagerFactory trustManagers(java.nio.file.Path trust) throws IOException, GeneralSecurityException {
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
        return tmf;
    }
}
