package org.sipcrypt.server.transport.netty;

import gov.nist.core.HostPort;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AttributeKey;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.ConnectionScope;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.transport.PeerKey;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.netty.tls.TlsEventsHandler;
import org.sipcrypt.server.transport.netty.tls.TlsStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP listening point and every TCP connection of it, inbound and outbound. Connections are
 * kept in one table keyed by {@link PeerKey} and reused for any message to the same peer; an
 * outgoing target under the {@code per-call} pattern gets a connection of its own per Call-ID
 * (named by {@link ConnectionScope}), closed when the SIP layer releases the call. Each connection
 * closes itself when idle (a per-connection timer), and the configured caps bound how many are open:
 * in all, and inbound per source address (checked on accept, before any TLS work). A
 * {@link StreamLimitsHandler} in front of the framer enforces the message deadlines. An address a
 * connect to it failed is not dialled again for {@code tcp.connectFailureHold} ({@link UnreachablePeers}).
 * Over TLS, a connection a verified peer aliased (RFC 5923, {@link ConnectionAliases}) carries what
 * goes to the peer's sent-by instead of a new one.
 * Threading: thread-safe; nothing waits for a connection's set-up (what is sent waits on the connection).
 */
final class NettyTcpMessageProcessor extends NettyMessageProcessor {

    private static final Logger log = LoggerFactory.getLogger(NettyTcpMessageProcessor.class);
    private static final AttributeKey<NettyTcpMessageProcessor> PROCESSOR = AttributeKey.valueOf("sipcrypt.processor");

    private final Map<PeerKey, CompletableFuture<NettyTcpMessageChannel>> connections = new ConcurrentHashMap<>();
    private final Map<String, Set<PeerKey>> perCall = new ConcurrentHashMap<>();
    private final UnreachablePeers unreachable;
    /** RFC 5923 aliases of this processor's connections; TLS only, null for TCP. */
    private final ConnectionAliases aliases;
    private final RateLimitedLog failures = new RateLimitedLog(log);
    private final RateLimitedLog aliasLog = new RateLimitedLog(log);
    private volatile Channel serverChannel;

    /**
     * @param kind TCP; TLS (the same connections with a TLS stage in front of the framer); WS or WSS
     *             (the same connections, inbound only, with a WebSocket stage where the framer was,
     *             and the TLS stage in front of it for WSS)
     */
    NettyTcpMessageProcessor(InetAddress address, int port, Transport kind, SIPTransactionStack stack,
                             NettyTransport transport) {
        super(address, port, kind, stack, transport);
        if (kind == Transport.UDP) {
            throw new IllegalArgumentException("a stream processor runs TCP, TLS, WS or WSS, not UDP");
        }
        if (kind.secure() && transport.settings().tls() == null) {
            throw new IllegalStateException("a " + kind.configName() + " listener needs TLS settings (tls.cert, tls.key)");
        }
        this.unreachable = new UnreachablePeers(transport.settings().connectFailureHold());
        this.aliases = kind == Transport.TLS ? new ConnectionAliases() : null;
    }

    /** Binds a listening socket; the processor for that address adopts it in {@link #start()}. */
    static Channel bind(NettyTransport transport, InetSocketAddress address) throws IOException {
        ServerBootstrap b = new ServerBootstrap()
                .group(transport.group())
                .channel(transport.serverChannelClass())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        NettyTcpMessageProcessor p = ch.parent().attr(PROCESSOR).get();
                        if (p == null) {
                            ch.close();
                            return;
                        }
                        // before any TLS or SIP work: a source at its cap costs an accept and a reset
                        if (!transport.admit(ch, p)) {
                            return;
                        }
                        p.initPipeline(ch, null, new SipConnectionHandler(p, null, null));
                    }
                });
        try {
            return b.bind(address).sync().channel();
        } catch (Exception e) {
            throw new IOException("cannot bind " + address + ": " + e.getMessage(), e);
        }
    }

    private void initPipeline(Channel ch, PeerKey outboundKey, SipConnectionHandler sip) {
        TransportSettings s = transport().settings();
        if (kind().secure()) {
            // before anything else: framing and SIP see only decrypted bytes
            ch.pipeline().addLast("tls", outboundKey == null ? s.tls().newHandler(ch, null)
                    : s.tlsFor(outboundKey.remote()).newHandler(ch, outboundKey.remote()));
            ch.pipeline().addLast("tls-events", new TlsEventsHandler(transport().counters()));
        }
        ch.pipeline().addLast("idle", new IdleStateHandler(0, 0, s.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
        if (kind().webSocket()) {
            WebSocketStage.addTo(ch.pipeline(), s.webSocket(), Math.min(s.webSocket().maxFrameBytes(), s.maxMessageBytes()),
                    transport().counters(), toString(), sip::closeReason);
            ch.pipeline().addLast("sip", sip);
            return;
        }
        SipStreamFramer framer = new SipStreamFramer(s.maxMessageBytes());
        ch.pipeline().addLast("limits", new StreamLimitsHandler(s.limits(), transport().partialMessages(), framer,
                sip::closeReason, outboundKey == null, kind() == Transport.TLS));
        ch.pipeline().addLast("framer", framer);
        ch.pipeline().addLast("sip", sip);
    }

    @Override
    public void start() throws IOException {
        Channel ch = transport().takeBound(kind(), localAddress());
        if (ch == null) {
            ch = bind(transport(), localAddress());
        }
        ch.attr(PROCESSOR).set(this);
        serverChannel = ch;
        transport().register(this);
        log.info("listening on {}", this);
    }

    @Override
    public void stop() {
        transport().unregister(this);
        Channel ch = serverChannel;
        if (ch != null) {
            ch.close().awaitUninterruptibly();
        }
        for (CompletableFuture<NettyTcpMessageChannel> f : connections.values()) {
            f.thenAccept(c -> c.closeWith("shutdown"));
        }
    }

    @Override
    boolean listening() {
        Channel ch = serverChannel;
        return ch != null && ch.isActive();
    }

    /**
     * Stops accepting new connections; open ones stay until closed. The returned future completes (on
     * the listener's event loop) once the listening socket is closed: a connection attempted after
     * that is refused, while one the kernel or the event loop took before it is served.
     */
    CompletableFuture<Void> stopAccepting() {
        CompletableFuture<Void> closed = new CompletableFuture<>();
        Channel ch = serverChannel;
        if (ch == null) {
            closed.complete(null);
        } else {
            ch.close().addListener(f -> closed.complete(null));
        }
        return closed;
    }

    /** Whether a TLS peer's open connection carries {@code host:port} as its alias (RFC 5923); any thread. */
    boolean aliases(String host, int port) {
        return aliases != null && !aliases.isEmpty()
                && aliases.find(ConnectionAliases.key(host, port <= 0 ? getDefaultTargetPort() : port)) != null;
    }

    @Override
    public MessageChannel createMessageChannel(HostPort target) throws IOException {
        if (aliases != null && !aliases.isEmpty() && !ConnectionScope.overFlow()) {
            // a name a peer aliased is found before it is looked up
            NettyTcpMessageChannel aliased = aliases.find(ConnectionAliases.key(target.getHost().getHostname(),
                    target.getPort() <= 0 ? getDefaultTargetPort() : target.getPort()));
            if (aliased != null) {
                return aliased;
            }
        }
        return createMessageChannel(target.getInetAddress(), target.getPort());
    }

    @Override
    public MessageChannel createMessageChannel(InetAddress host, int port) throws IOException {
        return connection(new InetSocketAddress(host, port <= 0 ? getDefaultTargetPort() : port));
    }

    @Override
    public boolean inUse() {
        return !connections.isEmpty();
    }

    /** Open connections in the table (inbound and outbound). */
    int connectionCount() {
        return connections.size();
    }

    /**
     * The connection to {@code target}: an open one from the table, or a new one. A connection being
     * dialled is returned at once, without waiting for its TCP connect or TLS handshake: what is
     * sent on it waits for them ({@link NettyTcpMessageChannel#write}), so neither a SIP lane nor an
     * event loop ever waits here. Without an open one, a target a connect to it failed within
     * {@code tcp.connectFailureHold} fails at once, undialled; so does a connect that fails before it
     * began (the connection cap).
     */
    NettyTcpMessageChannel connection(InetSocketAddress target) throws IOException {
        // RFC 7118 §5: a WebSocket client accepts no connections; it is reached over its own or not at all
        if (ConnectionScope.overFlow() || kind().webSocket()) {
            return flowConnection(target);
        }
        if (aliases != null && !aliases.isEmpty()) {
            // RFC 5923 §5: a verified peer's connection carries what goes to its sent-by, whatever
            // the pattern; nothing is dialled while it is open
            NettyTcpMessageChannel aliased = aliases.find(ConnectionAliases.key(target));
            if (aliased != null) {
                return aliased;
            }
        }
        ConnectionPattern pattern = transport().settings().policy().patternFor(target);
        String callId = pattern == ConnectionPattern.PER_CALL ? ConnectionScope.currentCallId() : null;
        PeerKey key = new PeerKey(kind(), target, callId);
        if (unreachable.held(target)) {
            CompletableFuture<NettyTcpMessageChannel> open = connections.get(key);
            if (open == null || isDead(open)) {
                transport().counters().connectionClosed("connect_held");
                throw new IOException("not dialling " + key + ": a connect to it failed less than "
                        + transport().settings().connectFailureHold() + " ago (tcp.connectFailureHold)");
            }
        }
        CompletableFuture<NettyTcpMessageChannel> f = connections.compute(key,
                (k, old) -> old == null || isDead(old) ? connect(k) : old);
        if (f instanceof Dialling d && !f.isDone()) {
            return d.channel;
        }
        NettyTcpMessageChannel c;
        try {
            c = f.getNow(null);
        } catch (CompletionException | CancellationException e) {
            connections.remove(key, f);
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IOException("cannot connect to " + key + ": " + cause.getMessage(), cause);
        }
        if (c == null || !c.isOpen()) {
            connections.remove(key, f);
            throw new IOException("connection to " + key + " failed");
        }
        return c;
    }

    /**
     * The open connection with {@code peer}, for a message that goes over a flow (RFC 5626 §5.3):
     * never a new one. Fails, counted as {@code transport.messages.dropped{reason=flow_closed}},
     * when there is none.
     */
    private NettyTcpMessageChannel flowConnection(InetSocketAddress peer) throws IOException {
        NettyTcpMessageChannel c = open(peer);
        if (c == null) {
            transport().counters().messageDropped("flow_closed");
            throw new IOException("no open " + kind().configName() + " connection with " + peer
                    + " (a flow is never dialled)");
        }
        return c;
    }

    /** The open (set-up) shared connection with {@code peer}, or null. */
    private NettyTcpMessageChannel open(InetSocketAddress peer) {
        CompletableFuture<NettyTcpMessageChannel> f = connections.get(PeerKey.shared(kind(), peer));
        if (f == null || !f.isDone() || isDead(f)) {
            return null;
        }
        NettyTcpMessageChannel c = f.getNow(null);
        return c != null && c.isOpen() ? c : null;
    }

    /** Whether the connection of {@code flow} (one of this processor's) is still open. */
    boolean flowOpen(Flow flow) {
        NettyTcpMessageChannel c = open(flow.remote());
        return c != null && c.connectionNumber() == flow.connection();
    }

    /**
     * An outgoing connection's set-up: completes with its message channel once the TCP connect (and
     * TLS handshake) succeeded, exceptionally when either failed. The channel exists from the dial.
     */
    private static final class Dialling extends CompletableFuture<NettyTcpMessageChannel> {
        /** Set before the future is published in the connection table. */
        private NettyTcpMessageChannel channel;
    }

    private static boolean isDead(CompletableFuture<NettyTcpMessageChannel> f) {
        if (!f.isDone()) {
            return false;
        }
        if (f.isCompletedExceptionally()) {
            return true;
        }
        return !f.join().isOpen();
    }

    private CompletableFuture<NettyTcpMessageChannel> connect(PeerKey key) {
        TransportSettings s = transport().settings();
        if (transport().counters().openConnections().get() >= s.maxConnections()) {
            transport().counters().connectionClosed("cap");
            return CompletableFuture.failedFuture(new IOException("connection cap of " + s.maxConnections() + " reached"));
        }
        if (key.callId() != null) {
            perCall.computeIfAbsent(key.callId(), k -> ConcurrentHashMap.newKeySet()).add(key);
        }
        // the message channel, its handler and its set-up exist before the dial: sends wait on them
        Dialling connected = new Dialling();
        SipConnectionHandler sip = new SipConnectionHandler(this, key, connected);
        NettyTcpMessageChannel channel = new NettyTcpMessageChannel(this, key.remote(), sip);
        connected.channel = channel;
        sip.dialled(channel);
        connected.whenComplete((c, failure) -> {
            if (failure == null) {
                channel.setUp();
            } else {
                channel.setUpFailed(failure);
            }
        });
        Bootstrap b = new Bootstrap()
                .group(transport().group())
                .channel(transport().socketChannelClass())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) s.connectTimeout().toMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        initPipeline(ch, key, sip);
                    }
                });
        ChannelFuture cf = b.connect(key.remote(), new InetSocketAddress(getIpAddress(), 0));
        channel.attach(cf.channel());
        cf.addListener(done -> {
            if (!done.isSuccess()) {
                transport().counters().connectionClosed("connect_failed");
                // held before the waiting senders hear of the failure, so their next send sees the hold
                if (unreachable.failed(key.remote(), done.cause())) {
                    failures.warn("connect_failed", "{}: cannot connect to {}: {}; not dialled again for {}"
                            + " (tcp.connectFailureHold)", kind().configName(), key.remote(), done.cause().toString(),
                            transport().settings().connectFailureHold());
                }
                connected.completeExceptionally(done.cause());
                forget(key, connected);
            }
        });
        return connected;
    }

    /** Called by a connection's handler once it is active. */
    void opened(PeerKey key, CompletableFuture<NettyTcpMessageChannel> future) {
        connections.put(key, future);
    }

    /** Called by a connection's handler when it has closed. */
    void closed(PeerKey key, CompletableFuture<NettyTcpMessageChannel> future, NettyTcpMessageChannel connection) {
        forget(key, future);
        if (aliases != null && connection != null) {
            aliases.closed(connection);
        }
    }

    /**
     * A request on {@code connection} offered its top Via's sent-by as an alias (RFC 5923 §5):
     * recorded when the connection is TLS and its peer's certificate, checked against
     * {@code tls.trust}, names {@code host}; else ignored. Counted either way in
     * {@code sip.aliases{result}}. On a SIP worker lane; no name is looked up.
     *
     * @param port the sent-by port, or -1 when the Via names none (5061 then)
     */
    void aliasOffered(NettyTcpMessageChannel connection, String host, int port) {
        ConnectionAliases.Result result;
        String key = ConnectionAliases.key(host, port <= 0 ? getDefaultTargetPort() : port);
        Channel ch = connection.nettyChannel();
        if (kind() != Transport.TLS || ch == null) {
            result = ConnectionAliases.Result.NOT_TLS;
        } else {
            InetSocketAddress peer = (InetSocketAddress) ch.remoteAddress();
            TlsStage stage = connection.dialledOut() && peer != null ? transport().settings().tlsFor(peer)
                    : transport().settings().tls();
            result = key == null ? ConnectionAliases.Result.NAME_MISMATCH
                    : ConnectionAliases.check(kind(), stage.checksPeersAgainstTrust(), TlsStage.peerChain(ch), host);
        }
        transport().counters().alias(result.tag());
        if (result == ConnectionAliases.Result.ACCEPTED) {
            aliases.put(key, connection);
            log.debug("{}: alias {} taken (RFC 5923)", connection, key);
        } else if (result == ConnectionAliases.Result.NOT_TLS) {
            log.debug("{}: alias {}:{} ignored: not TLS", connection, host, port);
        } else {
            aliasLog.warn("alias_" + result.tag(), "{}: alias {}:{} ignored: {}", connection, host, port, result.tag());
        }
    }

    private void forget(PeerKey key, CompletableFuture<NettyTcpMessageChannel> future) {
        connections.remove(key, future);
        if (key.callId() != null) {
            Set<PeerKey> keys = perCall.get(key.callId());
            if (keys != null) {
                keys.remove(key);
                if (keys.isEmpty()) {
                    perCall.remove(key.callId(), keys);
                }
            }
        }
    }

    /** Closes the per-call connections of a call whose dialog has ended. */
    void releaseCall(String callId) {
        Set<PeerKey> keys = perCall.remove(callId);
        if (keys == null) {
            return;
        }
        for (PeerKey key : keys) {
            CompletableFuture<NettyTcpMessageChannel> f = connections.remove(key);
            if (f != null) {
                f.thenAccept(c -> c.closeWith("call_ended"));
            }
        }
    }
}
