package org.sipcrypt.lab.loadgen;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.internal.tcnative.SSL;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.server.tls.PeerNames;
import org.sipcrypt.server.transport.netty.tls.BcTlsHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last stage of a lab stream connection: completes the connection's future when it is ready
 * for SIP (TCP: connected; TLS: handshake done; WS and WSS: the WebSocket upgrade done), counts TLS
 * handshakes, resumptions and failures into the side's {@link LegCounters} (with the sizes
 * {@link TlsFlightsHandler} measured on a client connection, and the time from its ClientHello
 * written to the handshake done; a SunJSSE session resumed when it was made before this connection,
 * an openssl one when BoringSSL says it reused one), frames the byte stream into SIP messages by Content-Length and
 * hands each to the {@link StreamConnection.Listener}, and tells the listener when the connection
 * closes. A framing error closes that connection only.
 * Threading: one instance per channel, event loop only (not @Sharable).
 */
final class SipStreamHandler extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(SipStreamHandler.class);

    private final StreamConnection connection;
    private final boolean tls;
    private final boolean webSocket;
    private final String peerName;
    private final LegCounters counters;
    private final StreamConnection.Listener listener;
    private final CompletableFuture<StreamConnection> ready;
    private final StreamFramer framer = new StreamFramer(StreamConnection.MAX_MESSAGE_BYTES);
    /** Each read's bytes on their way into the framer, which copies them: reused, not one array per read. */
    private byte[] scratch = new byte[4096];
    /** When this connection's handshake began, to tell a resumed SunJSSE session from a new one. */
    private final long beganMillis = System.currentTimeMillis();
    private String reason;

    /**
     * @param peerName the address the server's certificate must name (RFC 5922 §7.2), checked here
     *                 after the handshake; for a SunJSSE client with session reuse off, whose engine
     *                 knows no peer so that it neither offers nor keeps sessions; else null
     */
    SipStreamHandler(StreamConnection connection, boolean tls, boolean webSocket, String peerName, LegCounters counters,
                     StreamConnection.Listener listener, CompletableFuture<StreamConnection> ready) {
        this.connection = connection;
        this.tls = tls;
        this.webSocket = webSocket;
        this.peerName = peerName;
        this.counters = counters;
        this.listener = listener;
        this.ready = ready;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (!tls && !webSocket) {
            ready.complete(connection);
        }
        ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent e) {
            long doneNanos = System.nanoTime();
            String wrongPeer = e.isSuccess() ? wrongPeer(ctx) : null;
            if (e.isSuccess() && wrongPeer == null) {
                boolean resumed = resumed(ctx);
                connection.resumed(resumed);
                counters.handshakes.increment();
                if (resumed) {
                    counters.resumed.increment();
                }
                TlsFlightsHandler sizes = ctx.pipeline().get(TlsFlightsHandler.class);
                TlsFlights flights = sizes == null ? null : sizes.flights();
                if (flights != null) {
                    counters.handshakeFlights(resumed, flights);
                }
                if (sizes != null && sizes.clientHelloWritten()) {
                    counters.handshakeTime(resumed, sizes.clientHelloNanos(), doneNanos);
                }
                if (sizes != null) {
                    // its work ends with the handshake: the connection's records no longer pass through it
                    ctx.pipeline().remove(sizes);
                }
                if (!webSocket) {
                    ready.complete(connection);
                }
            } else {
                counters.handshakesFailed.increment();
                reason = "TLS handshake failed: " + (wrongPeer != null ? wrongPeer : e.cause().getMessage());
                log.debug("{} {}", connection, reason);
                ready.completeExceptionally(new SSLException(reason, e.cause()));
                ctx.close();
            }
        }
        if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
            ready.complete(connection);
        } else if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
            reason = "WebSocket upgrade not answered in time";
            ctx.close();
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** Null when no name is to be checked or the server's certificate names {@link #peerName}, else why not. */
    private String wrongPeer(ChannelHandlerContext ctx) {
        if (peerName == null) {
            return null;
        }
        try {
            Certificate[] chain = ctx.pipeline().get(SslHandler.class).engine().getSession().getPeerCertificates();
            return PeerNames.matches((X509Certificate) chain[0], peerName) ? null
                    : "the server's certificate does not name " + peerName + " (RFC 5922 §7.2)";
        } catch (SSLPeerUnverifiedException e) {
            return "no server certificate: " + e.getMessage();
        }
    }

    private boolean resumed(ChannelHandlerContext ctx) {
        BcTlsHandler bc = ctx.pipeline().get(BcTlsHandler.class);
        if (bc != null) {
            return bc.connection().resumed();
        }
        SSLEngine engine = ctx.pipeline().get(SslHandler.class).engine();
        if (engine instanceof ReferenceCountedOpenSslEngine openssl) {
            // BoringSSL says whether it resumed (session ID, ticket or TLS 1.3 PSK); its sessions'
            // creation times have whole seconds only
            long ssl = openssl.sslPointer();
            return ssl != 0 && SSL.isSessionReused(ssl);
        }
        SSLSession s = engine.getSession();
        return s.getCreationTime() < beganMillis;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf b = (ByteBuf) msg;
        try {
            if (!ctx.channel().isOpen()) {
                return;
            }
            int n = b.readableBytes();
            if (scratch.length < n) {
                scratch = new byte[Math.max(n, scratch.length * 2)];
            }
            b.readBytes(scratch, 0, n);
            for (SipMessage m : framer.feed(scratch, 0, n)) {
                listener.message(connection, m);
            }
        } catch (IllegalArgumentException e) {
            reason = "framing: " + e.getMessage();
            log.debug("{} closed: {}", connection, reason);
            ctx.close();
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (reason == null) {
            reason = cause.getClass().getSimpleName() + ": " + cause.getMessage();
        }
        log.debug("{} failed: {}", connection, reason);
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        String why = reason != null ? reason : "closed";
        ready.completeExceptionally(new IOException(connection + " closed before it was ready: " + why));
        listener.closed(connection, why);
        ctx.fireChannelInactive();
    }
}
