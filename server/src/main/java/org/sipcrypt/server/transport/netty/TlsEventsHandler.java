package org.sipcrypt.server.transport.netty;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.util.Locale;
import javax.net.ssl.SSLHandshakeException;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.sipcrypt.server.transport.TransportCounters;
import org.slf4j.LoggerFactory;

/**
 * Counts TLS handshakes as they end: {@code tls.handshakes{kind=full|resumed}}, or
 * {@code tls.handshakes.failed{reason}} ({@code not_tls}, {@code timeout}, {@code no_shared_cipher},
 * {@code bad_certificate}, {@code closed}, {@code handshake}), logged once a minute per reason. The
 * TLS stage itself sends the alert and closes the connection. A jsse session counts as resumed when
 * it was made before this connection was.
 * Threading: one instance per channel, event loop only (not @Sharable).
 */
final class TlsEventsHandler extends ChannelInboundHandlerAdapter {

    private static final RateLimitedLog rateLimited = new RateLimitedLog(LoggerFactory.getLogger(TlsEventsHandler.class));

    private final TransportCounters counters;
    private final long created = System.currentTimeMillis();

    TlsEventsHandler(TransportCounters counters) {
        this.counters = counters;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent e) {
            if (e.isSuccess()) {
                counters.tlsHandshake(resumed(ctx));
            } else {
                String reason = reason(e.cause());
                counters.tlsHandshakeFailed(reason);
                rateLimited.warn("tls_" + reason, "tls {}: handshake failed ({}): {}", ctx.channel().remoteAddress(),
                        reason, String.valueOf(e.cause()));
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    private boolean resumed(ChannelHandlerContext ctx) {
        ChannelHandler tls = ctx.pipeline().get("tls");
        if (tls instanceof BcTlsHandler bc) {
            return bc.connection().resumed();
        }
        return tls instanceof SslHandler ssl && ssl.engine().getSession().getCreationTime() < created;
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
        String m = String.valueOf(c == null ? null : c.getMessage()).toLowerCase(Locale.ROOT);
        if (m.contains("cipher")) {
            return "no_shared_cipher";
        }
        if (m.contains("certificate") || m.contains("path") || m.contains("subject alternative name")
                || m.contains("name matching")) {
            return "bad_certificate";
        }
        return "handshake";
    }
}
