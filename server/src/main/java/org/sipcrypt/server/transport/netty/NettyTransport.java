package org.sipcrypt.server.transport.netty;

import gov.nist.javax.sip.message.SIPRequest;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.sipcrypt.server.transport.CallConnections;
import org.sipcrypt.server.transport.kept.CompletedTransactions;
import org.sipcrypt.server.transport.EarlyAnswers;
import org.sipcrypt.server.transport.EarlyRelays;
import org.sipcrypt.server.transport.RequestsNotSent;
import org.sipcrypt.server.transport.ConnectionsPerSource;
import org.sipcrypt.server.transport.PartialMessages;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.sipcrypt.server.transport.StreamLimits;
import org.sipcrypt.server.transport.OverloadGuard;
import org.sipcrypt.server.transport.SipWorkers;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.TransportCounters;
import org.sipcrypt.server.transport.fastpath.FastPath;
import org.sipcrypt.server.transport.netty.tls.TlsEventsHandler;
import org.sipcrypt.server.transport.netty.tls.TlsStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the Netty message processors of one server share: the event loops (epoll when available,
 * NIO otherwise), the settings, the counters, the SIP worker lanes that parsed messages are handed
 * to, the inbound connections per source and the bytes of incomplete messages (the flood bounds of
 * {@link StreamLimits}), and the sockets bound ahead of JAIN-SIP's listening points (so that port 0 can pick an
 * ephemeral port and bind errors surface before the stack is touched).
 * Threading: thread-safe; never blocks, except {@link #close()} and the binding calls, which are
 * for the start-up and shutdown threads.
 */
public final class NettyTransport implements CallConnections, FastPath.Seams, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NettyTransport.class);
    private static final RateLimitedLog sourceCapLog = new RateLimitedLog(log);

    private final TransportSettings settings;
    private final TransportCounters counters;
    private final SipWorkers workers;
    private final CompletedTransactions completed;
    private final EventLoopGroup group;
    private final boolean epoll;
    private final Map<String, Channel> preBound = new ConcurrentHashMap<>();
    private final Set<NettyTcpMessageProcessor> tcpProcessors = ConcurrentHashMap.newKeySet();
    private final ConnectionsPerSource perSource;
    private final PartialMessages partialMessages;
    private volatile OverloadGuard guard;
    private volatile EarlyAnswers early;
    private volatile EarlyRelays relays;
    private volatile RequestsNotSent notSent;
    /** What messages settle from their bytes here, over this transport's seams. */
    private final FastPath fastPath = new FastPath(this);

    /**
     * @param completed final responses of completed non-INVITE transactions over UDP, answering
     *                  their retransmissions
     */
    public NettyTransport(TransportSettings settings, TransportCounters counters, SipWorkers workers,
                          CompletedTransactions completed) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.counters = Objects.requireNonNull(counters, "counters");
        this.workers = Objects.requireNonNull(workers, "workers");
        this.completed = Objects.requireNonNull(completed, "completed");
        int threads = settings.ioThreads() == 0 ? 2 * Runtime.getRuntime().availableProcessors() : settings.ioThreads();
        DefaultThreadFactory tf = new DefaultThreadFactory("sipcrypt-io", true);
        this.epoll = Epoll.isAvailable();
        this.group = epoll ? new EpollEventLoopGroup(threads, tf) : new NioEventLoopGroup(threads, tf);
        log.info("transport: netty {} with {} event-loop threads", epoll ? "epoll" : "nio", threads);
        if (settings.tls() != null) {
            TlsEventsHandler.loadSuiteNames();
        }
        StreamLimits limits = settings.limits();
        this.perSource = new ConnectionsPerSource(limits.maxConnectionsPerSource(), limits.exemptSources());
        this.partialMessages = new PartialMessages(limits.maxPartialBytes());
        counters.registry().gauge("transport.partial.bytes", partialMessages, PartialMessages::heldBytes);
        if (limits.maxConnectionsPerSource() >= settings.maxConnections()) {
            log.warn("tcp.maxConnectionsPerSource {} is not below tcp.maxConnections {}: one source can take every"
                    + " connection and lock the others out", limits.maxConnectionsPerSource(), settings.maxConnections());
        }
    }

    /**
     * Counts a newly accepted connection against its source's cap ({@code tcp.maxConnectionsPerSource});
     * beyond it, resets the connection at once, counts it as
     * {@code transport.connections.closed{reason=source_cap}} and returns false. Runs on the new
     * connection's event loop before its pipeline exists, so a refused connection costs no TLS work.
     */
    boolean admit(Channel ch, NettyTcpMessageProcessor processor) {
        InetAddress source = ((InetSocketAddress) ch.remoteAddress()).getAddress();
        if (!perSource.tryOpen(source)) {
            counters.connectionClosed("source_cap");
            sourceCapLog.warn("source_cap", "{}: {} already has {} connections (tcp.maxConnectionsPerSource);"
                    + " resetting new ones", processor, source.getHostAddress(), perSource.max());
            ch.config().setOption(ChannelOption.SO_LINGER, 0);
            ch.close();
            return false;
        }
        ch.closeFuture().addListener(f -> perSource.closed(source));
        return true;
    }

    /** Inbound connections open from {@code source}, as counted for {@code tcp.maxConnectionsPerSource}. */
    public int connectionsFrom(InetAddress source) {
        return perSource.openFrom(source);
    }

    /** The bytes held in incomplete messages over all connections, and the bound on them. */
    public PartialMessages partialMessages() {
        return partialMessages;
    }

    /**
     * Decides from now on which received messages may join the worker lanes (overload and the
     * shutdown drain); until it is set, all may. Set once, when the SIP layer it reads is up.
     */
    public void admitWith(OverloadGuard guard) {
        this.guard = Objects.requireNonNull(guard, "guard");
    }

    OverloadGuard guard() {
        return guard;
    }

    /**
     * Answers, from now on, the UDP requests {@code answers} can answer from their bytes before they
     * are parsed; until it is set, every request goes to the stack. Set once, when the SIP layer it
     * reads is up.
     */
    public void answerEarlyWith(EarlyAnswers answers) {
        this.early = Objects.requireNonNull(answers, "answers");
    }

    /** The early answers, or null when there are none. */
    @Override
    public EarlyAnswers earlyAnswers() {
        return early;
    }

    /**
     * Relays, from now on, the UDP requests {@code relays} can forward from their bytes before they
     * are parsed; until it is set, every request goes to the stack. Set once, when the SIP layer it
     * reads is up.
     */
    public void relayEarlyWith(EarlyRelays relays) {
        this.relays = Objects.requireNonNull(relays, "relays");
    }

    /** The early relays, or null when there are none. */
    @Override
    public EarlyRelays earlyRelays() {
        return relays;
    }

    /**
     * Reports, from now on, the stack's requests that waited for a connection whose connect or TLS
     * handshake then failed; until it is set, they are only counted as dropped. Set once, when the
     * SIP layer is up.
     */
    public void reportRequestsNotSentTo(RequestsNotSent listener) {
        this.notSent = Objects.requireNonNull(listener, "listener");
    }

    /** Counts a request that never left and tells the listener, if there is one. */
    void requestNotSent(SIPRequest request, Throwable cause) {
        RequestsNotSent l = notSent;
        if (l != null) {
            try {
                l.notSent(request, cause);
            } catch (RuntimeException e) {
                log.warn("a request not sent was not handled: {}", e.toString());
            }
        }
    }

    /** Final responses kept for retransmitted non-INVITE requests over UDP. */
    @Override
    public CompletedTransactions completedTransactions() {
        return completed;
    }

    /** The fast path of the messages received over this transport. */
    FastPath fastPath() {
        return fastPath;
    }

    public TransportSettings settings() {
        return settings;
    }

    @Override
    public TransportCounters counters() {
        return counters;
    }

    SipWorkers workers() {
        return workers;
    }

    EventLoopGroup group() {
        return group;
    }

    Class<? extends DatagramChannel> datagramChannelClass() {
        return epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }

    Class<? extends ServerSocketChannel> serverChannelClass() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    Class<? extends SocketChannel> socketChannelClass() {
        return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /**
     * Binds the listening socket of a listener now and returns its actual address (the port chosen
     * when 0 was asked). The message processor JAIN-SIP creates for that address adopts the socket.
     */
    public InetSocketAddress bind(Transport transport, InetSocketAddress address) throws java.io.IOException {
        Channel ch = switch (transport) {
            case UDP -> NettyUdpMessageProcessor.bind(this, address);
            case TCP, TLS, WS, WSS -> NettyTcpMessageProcessor.bind(this, address);
        };
        // the address asked with the port bound: epoll reports a socket bound to 0.0.0.0 as bound to
        // ::, which would make an IPv4 listener look like a dual-stack one
        InetSocketAddress actual = new InetSocketAddress(address.getAddress(), ((InetSocketAddress) ch.localAddress()).getPort());
        preBound.put(key(transport, actual), ch);
        return actual;
    }

    /** The socket bound by {@link #bind} for this listener, removed from the waiting list; or null. */
    Channel takeBound(Transport transport, InetSocketAddress address) {
        return preBound.remove(key(transport, address));
    }

    void register(NettyTcpMessageProcessor processor) {
        tcpProcessors.add(processor);
    }

    void unregister(NettyTcpMessageProcessor processor) {
        tcpProcessors.remove(processor);
    }

    /** Stops accepting new TCP connections; open ones stay (graceful shutdown). */
    public void stopAccepting() {
        for (NettyTcpMessageProcessor p : tcpProcessors) {
            p.stopAccepting();
        }
    }

    /**
     * Stops accepting new connections on the one stream listener of {@code kind} bound to {@code local};
     * its open connections stay. Returns a future that completes once its listening socket is closed,
     * or null when there is no such listener.
     */
    public CompletableFuture<Void> stopAccepting(Transport kind, InetSocketAddress local) {
        CompletableFuture<Void> closed = null;
        for (NettyTcpMessageProcessor p : tcpProcessors) {
            if (p.kind() == kind && p.localAddress().equals(local)) {
                closed = p.stopAccepting();
            }
        }
        return closed;
    }

    @Override
    public void releaseCall(String callId) {
        for (NettyTcpMessageProcessor p : tcpProcessors) {
            p.releaseCall(callId);
        }
    }

    /** Whether {@code flow} can carry a message now: UDP always; TCP and TLS while its connection is open. */
    @Override
    public boolean flowOpen(org.sipcrypt.server.transport.Flow flow) {
        if (!flow.transport().reliable()) {
            return true;
        }
        for (NettyTcpMessageProcessor p : tcpProcessors) {
            if (p.kind() == flow.transport() && p.localAddress().equals(flow.local()) && p.flowOpen(flow)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a verified TLS peer aliased {@code host:port} (RFC 5923) and that connection is open: what
     * goes there takes that connection, found by the name as given, so the name is not to be looked
     * up. Any thread; reads the aliases' table only.
     */
    public boolean aliased(String host, int port) {
        for (NettyTcpMessageProcessor p : tcpProcessors) {
            if (p.aliases(host, port)) {
                return true;
            }
        }
        return false;
    }

    /** Connections open over one stream transport ({@code tcp} or {@code tls}), inbound and outbound. */
    public int openConnections(Transport kind) {
        int n = 0;
        for (NettyTcpMessageProcessor p : tcpProcessors) {
            if (p.kind() == kind) {
                n += p.connectionCount();
            }
        }
        return n;
    }

    /** Whether a listening point of the stack is on one of our processors with its listening socket open. */
    public static boolean listening(javax.sip.ListeningPoint point) {
        return point instanceof gov.nist.javax.sip.ListeningPointImpl impl
                && impl.getMessageProcessor() instanceof NettyMessageProcessor p && p.listening();
    }

    private static String key(Transport transport, InetSocketAddress address) {
        return transport + "/" + address.getAddress().getHostAddress() + "/" + address.getPort();
    }

    /** Closes sockets never adopted and stops the event loops, waiting a bounded time. */
    @Override
    public void close() {
        preBound.values().forEach(Channel::close);
        preBound.clear();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        if (settings.tls() != null) {
            settings.tls().close();
        }
        settings.peerTls().values().forEach(TlsStage::close);
    }
}
