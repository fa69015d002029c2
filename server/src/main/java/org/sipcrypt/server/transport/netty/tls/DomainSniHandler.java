package org.sipcrypt.server.transport.netty.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.sipcrypt.server.tls.CurrentIdentities;
import org.sipcrypt.server.tls.ServerIdentities;

/**
 * The first TLS stage of an accepted connection on the jsse and openssl engines when some
 * {@code tls.domain} has suites or a client-certificate policy of its own: reads the ClientHello's
 * server_name (RFC 6066 §3) and puts in its place, under the same pipeline name, an {@code SslHandler}
 * of that domain's server context (the default context for no name, a name no domain covers, or a
 * domain without settings of its own). The engine then reads the whole ClientHello itself: the
 * certificate is chosen by the same name in {@link org.sipcrypt.server.tls.ServerNameKeyManager}.
 * A ClientHello is read until it is complete, {@value #MAX_CLIENT_HELLO_BYTES} bytes at most (Netty's
 * own bound is 16 MiB); a longer one, bytes that are not TLS, or none within the handshake timeout
 * close that connection.
 * Threading: one instance per channel, event loop only (not @Sharable).
 */
final class DomainSniHandler extends SniHandler {

    /** Far above any ClientHello seen (TLS 1.3 with hybrid key shares: about 2 KiB). */
    static final int MAX_CLIENT_HELLO_BYTES = 64 * 1024;

    private final Consumer<SslHandler> setUp;

    /**
     * @param identities the sets whose {@code select} maps a server_name to a domain name
     * @param contexts   the server context of each domain with settings of its own, by name
     * @param fallback   the listener's server context
     * @param handshakeTimeoutMillis how long the ClientHello may take to arrive
     * @param setUp      what every accepted {@code SslHandler} gets (timeout, groups, name matcher)
     */
    DomainSniHandler(CurrentIdentities identities, Map<String, SslContext> contexts, SslContext fallback,
                     long handshakeTimeoutMillis, Consumer<SslHandler> setUp) {
        super(host -> contextFor(identities, contexts, fallback, host), MAX_CLIENT_HELLO_BYTES, handshakeTimeoutMillis);
        this.setUp = Objects.requireNonNull(setUp, "setUp");
    }

    /** The context of the domain the name chooses; the listener's for anything else. */
    static SslContext contextFor(CurrentIdentities identities, Map<String, SslContext> contexts, SslContext fallback,
                                 String host) {
        ServerIdentities.Identity id = identities.current().select(host);
        // a name refused by tls.unknownServerName=refuse gets the default context, whose engine's
        // server-name matcher answers unrecognized_name
        return id == null ? fallback : contexts.getOrDefault(id.name(), fallback);
    }

    @Override
    protected SslHandler newSslHandler(SslContext context, ByteBufAllocator allocator) {
        SslHandler h = super.newSslHandler(context, allocator);
        setUp.accept(h);
        return h;
    }

    /** Same as Netty's, but keeps the pipeline name ({@code tls}) the rest of the server finds its TLS stage by. */
    @Override
    protected void replaceHandler(ChannelHandlerContext ctx, String hostname, SslContext sslContext) {
        SslHandler h = newSslHandler(sslContext, ctx.alloc());
        try {
            ctx.pipeline().replace(this, ctx.name(), h);
        } catch (RuntimeException | Error e) {
            ReferenceCountUtil.safeRelease(h.engine());
            throw e;
        }
    }
}
