package org.sipcrypt.server.transport.netty.tls;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLHandshakeException;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteProvider;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.sipcrypt.server.transport.TransportCounters;
import org.slf4j.LoggerFactory;

/**
 * Counts TLS handshakes as they end:
 * {@code tls.handshakes{kind=full|resumed,role=server|client,suite,group,engine=bc|jsse|openssl}}
 * (role: the side of the handshake this server took, client on a connection it opened; engine: the
 * one whose handler is the channel's TLS stage), or
 * {@code tls.handshakes.failed{reason}} ({@code not_tls}, {@code timeout}, {@code no_shared_cipher},
 * {@code bad_certificate}, {@code revoked}, {@code unrecognized_name}, {@code closed}, {@code overload}, {@code handshake}), logged once a minute per reason. The
 * TLS stage itself sends the alert and closes the connection. A jsse session counts as resumed when
 * it was made before this connection was; an openssl one when BoringSSL says it was reused. The
 * negotiated suite's name is kept on the channel ({@link #SUITE}).
 * Threading: one instance per channel, event loop only (not @Sharable).
 */
public final class TlsEventsHandler extends ChannelInboundHandlerAdapter {

    private static final RateLimitedLog rateLimited = new RateLimitedLog(LoggerFactory.getLogger(TlsEventsHandler.class));

    /** The negotiated suite's standard name, set once the handshake has succeeded; read from any thread. */
    public static final io.netty.util.AttributeKey<String> SUITE = io.netty.util.AttributeKey.valueOf("sipcrypt.tls.suite");

    private final TransportCounters counters;
    private final long created = System.currentTimeMillis();

    public TlsEventsHandler(TransportCounters counters) {
        this.counters = counters;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent e) {
            if (e.isSuccess()) {
                String suite = suite(ctx);
                // kept on the channel for readers off the event loop (call detail records)
                ctx.channel().attr(SUITE).set(suite);
                counters.tlsHandshake(asClient(ctx), resumed(ctx), suite, group(ctx), engine(ctx));
            } else {
                String reason = ServerNames.refused(ctx.pipeline().get("tls")) ? "unrecognized_name" : reason(e.cause());
                counters.tlsHandshakeFailed(reason);
                rateLimited.warn("tls_" + reason, "tls {}: handshake failed ({}): {}", ctx.channel().remoteAddress(),
                        reason, String.valueOf(e.cause()));
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    /** Whether this server took the client's side of the handshake: a connection it opened to a peer. */
    private static boolean asClient(ChannelHandlerContext ctx) {
        ChannelHandler tls = ctx.pipeline().get("tls");
        if (tls instanceof BcTlsHandler bc) {
            return bc.connection().client();
        }
        return tls instanceof SslHandler ssl && ssl.engine().getUseClientMode();
    }

    /**
     * The engine that made the handshake, by its {@code tls.engine} name: {@code bc} for the bc
     * engine's handler, {@code openssl} for an {@code SslHandler} on BoringSSL, {@code jsse} for one
     * on a JSSE {@code SSLEngine}; {@code unknown} for any other handler (none is built).
     */
    private static String engine(ChannelHandlerContext ctx) {
        ChannelHandler tls = ctx.pipeline().get("tls");
        if (tls instanceof BcTlsHandler) {
            return TlsEngine.BC.configName();
        }
        if (tls instanceof SslHandler ssl) {
            return (ssl.engine() instanceof ReferenceCountedOpenSslEngine ? TlsEngine.OPENSSL : TlsEngine.JSSE)
                    .configName();
        }
        return "unknown";
    }

    private boolean resumed(ChannelHandlerContext ctx) {
        ChannelHandler tls = ctx.pipeline().get("tls");
        if (tls instanceof BcTlsHandler bc) {
            return bc.connection().resumed();
        }
        if (tls instanceof SslHandler ssl && ssl.engine() instanceof ReferenceCountedOpenSslEngine) {
            return OpenSslTlsStage.resumed(ssl.engine());
        }
        return tls instanceof SslHandler ssl && ssl.engine().getSession().getCreationTime() < created;
    }

    /** Loads the suite names now, on the start-up thread, so no event loop waits for the class path. */
    public static void loadSuiteNames() {
        if (SuiteNames.BY_CODE.isEmpty()) {
            LoggerFactory.getLogger(TlsEventsHandler.class).debug("no cipher-suite providers installed");
        }
    }

    /**
     * The key-exchange group by its {@code tls.groups} name: the bc engine's listener side tells it;
     * SunJSSE (to Java 25) and Netty's OpenSSL engine have no call for it, so {@code unknown} there.
     */
    private static String group(ChannelHandlerContext ctx) {
        return ctx.pipeline().get("tls") instanceof BcTlsHandler bc ? bc.connection().keyExchangeGroup() : "unknown";
    }

    /** The negotiated suite's standard name; a bc suite's from the providers that offered it. */
    private static String suite(ChannelHandlerContext ctx) {
        ChannelHandler tls = ctx.pipeline().get("tls");
        if (tls instanceof BcTlsHandler bc) {
            int code = bc.connection().cipherSuite();
            return SuiteNames.BY_CODE.getOrDefault(code, String.format("0x%04X", code));
        }
        return tls instanceof SslHandler ssl ? ssl.engine().getSession().getCipherSuite() : "unknown";
    }

    /** The suites of the installed providers by IANA code, loaded once. Threading: immutable. */
    private static final class SuiteNames {
        static final Map<Integer, String> BY_CODE = load();

        private static Map<Integer, String> load() {
            Map<Integer, String> out = new HashMap<>();
            for (CipherSuiteProvider p : CipherSuiteRegistry.load(TlsEventsHandler.class.getClassLoader()).providers()) {
                for (CipherSuiteId s : p.suites()) {
                    out.putIfAbsent(s.code(), s.name());
                }
            }
            return Map.copyOf(out);
        }
    }

    /** The metric tag of a handshake failure. */
    static String reason(Throwable cause) {
        if (cause instanceof TlsHandshakeFailure f) {
            return f.reason();
        }
        if (cause instanceof ClosedChannelException) {
            return "closed";
        }
        Throwable c = cause;
        while (c != null && c.getCause() != null && !(c instanceof SSLHandshakeException)
                && !(c instanceof NotSslRecordException) && !(c instanceof SslHandshakeTimeoutException)) {
            c = c.getCause();
        }
        if (c instanceof NotSslRecordException) {
            return "not_tls";
        }
        if (c instanceof SslHandshakeTimeoutException) {
            return "timeout";
        }
        // the openssl engine wraps what failed (the trust manager's verdict) in a general exception
        StringBuilder text = new StringBuilder();
        for (Throwable t = c; t != null && text.length() < 2_000; t = t.getCause() == t ? null : t.getCause()) {
            text.append(t.getMessage()).append('\n');
        }
        String m = text.toString().toLowerCase(Locale.ROOT);
        if (m.contains("cipher")) {
            return "no_shared_cipher";
        }
        if (m.contains("revoked")) {
            return "revoked";
        }
        if (m.contains("certificate") || m.contains("path") || m.contains("subject alternative name")
                || m.contains("name matching")) {
            return "bad_certificate";
        }
        return "handshake";
    }
}
