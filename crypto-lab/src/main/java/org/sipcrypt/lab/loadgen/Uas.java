package org.sipcrypt.lab.loadgen;

import io.netty.channel.Channel;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The UAS role: answers INVITE with 100, 180 and 200 (with an SDP answer), takes ACK silently,
 * answers BYE, OPTIONS and CANCEL with 200 and anything else with 501. Responses go back the way
 * the request came: on TCP and TLS over its connection, on UDP to the datagram's source address
 * (RFC 3581 behaviour, which is where a proxy or the UAC listens). On UDP it keeps a small
 * transaction memory (Call-ID, CSeq and top Via branch, for 64 × T1) and answers a retransmitted
 * request with the last response again, and it retransmits the 200 to an INVITE by Timer G until the
 * ACK comes or Timer H gives up (RFC 3261 §13.3.1.4). Over WS and WSS it listens on nothing: a
 * WebSocket client accepts no connections (RFC 7118 §5), so it connects to the proxy, registers its
 * address of record over that connection ({@link #register}) and answers what the proxy sends over it.
 * Threads: one receiver per UDP listener ({@code lab-uas-udp-PORT}); TCP and TLS listeners and their
 * connections on the UAS's event loops ({@code lab-uas-io-N}, not shared with the generator, no thread
 * per connection), where requests are answered (nothing there blocks: replies are queued writes, the
 * INVITE limit a short lock); and {@code lab-uas-timer} for Timer G/H and forgetting transactions.
 * Every thread of the UAS is named {@value #THREADS}{@code -…}, so its CPU time can be told from the
 * generator's in one process.
 * Threading: thread-safe; {@link #listen} before traffic, {@link #close} once.
 */
public final class Uas implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(Uas.class);

    /** How the names of the UAS's threads begin. */
    public static final String THREADS = "lab-uas";
    private static final long T1_MILLIS = 500;
    private static final long T2_MILLIS = 4000;
    private static final String SDP = "v=0\r\no=lab-uas 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
            + "m=audio 49180 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n";
    private static final int SDP_BYTES = SDP.getBytes(StandardCharsets.UTF_8).length;
    /** How long a WebSocket registration's connection, upgrade and REGISTER may take. */
    private static final Duration REGISTER_TIMEOUT = Duration.ofSeconds(10);
    /** The expiry a WebSocket registration asks for, and how often it is refreshed (half of it). */
    private static final Duration REGISTER_EXPIRES = Duration.ofMinutes(10);
    static final Duration REGISTER_REFRESH = REGISTER_EXPIRES.dividedBy(2);

    private final LegCounters counters = new LegCounters();
    private final Duration oneWayDelay;
    private final ScheduledThreadPoolExecutor timer;
    private final List<Closeable> open = new ArrayList<>();
    private final Set<StreamConnection> connections = ConcurrentHashMap.newKeySet();
    /** Last response per UDP transaction, for retransmitted requests. */
    private final Map<String, byte[]> answered = new ConcurrentHashMap<>();
    /** INVITEs whose 200 is retransmitted until their ACK, by Call-ID. */
    private final Map<String, Boolean> awaitingAck = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    private final AtomicLong tagCounter = new AtomicLong();
    /** The CSeq numbers of this UAS's REGISTERs. */
    private final AtomicLong registerCSeq = new AtomicLong();
    /** The answer to the REGISTER in flight over a WebSocket registration, by CSeq number. */
    private final Map<Long, CompletableFuture<SipMessage>> registering = new ConcurrentHashMap<>();
    private final LongAdder timerH = new LongAdder();
    private final LongAdder refused = new LongAdder();
    /** INVITEs per second answered at most (a callee of limited capacity), 0 for no limit. */
    private volatile double invitesPerSecond;
    private final Object bucket = new Object();
    private double tokens;
    private long tokensAtNanos = System.nanoTime();

    /** A UAS with no listener yet, without delay. */
    public Uas() {
        this(Duration.ZERO);
    }

    /**
     * A UAS with no listener yet whose listeners hold what they send and receive for a one-way delay
     * in the lab delay stage ({@link OneWayDelayHandler}, {@link DatagramDelayLine}); zero for none.
     */
    public Uas(Duration oneWayDelay) {
        if (oneWayDelay.isNegative() || oneWayDelay.compareTo(UacOptions.MAX_ONE_WAY_DELAY) > 0) {
            throw new IllegalArgumentException("--one-way-delay: " + oneWayDelay + " (expected 0 to "
                    + UacOptions.MAX_ONE_WAY_DELAY.toSeconds() + "s)");
        }
        this.oneWayDelay = oneWayDelay;
        timer = NamedThreads.named(THREADS + "-timer").scheduler();
    }

    /**
     * Opens a listener.
     *
     * @param tls the listener's TLS settings (certificate and key required), for TLS only
     * @return the bound address (port 0 picks a free port)
     */
    public synchronized InetSocketAddress listen(Transport transport, InetSocketAddress address, TlsOptions tls)
            throws IOException {
        if (transport == Transport.UDP) {
            UdpEndpoint[] self = new UdpEndpoint[1];
            UdpEndpoint udp = new UdpEndpoint(address, counters, (m, from) -> onUdp(self[0], m, from),
                    THREADS + "-udp-" + address.getPort(), oneWayDelay);
            self[0] = udp;
            open.add(udp);
            log.info("uas listening on udp:{}", hostPort(udp.localAddress()));
            return udp.localAddress();
        }
        if (transport == Transport.TLS && (tls == null || tls.cert() == null)) {
            throw new IllegalArgumentException("--cert and --key: a tls listener needs a certificate and key");
        }
        LegConnector connector = new LegConnector(transport, tls, counters, Duration.ofSeconds(10),
                LabEventLoops.uas(), oneWayDelay, false);
        StreamConnection.Listener listener = new StreamConnection.Listener() {
            @Override
            public void message(StreamConnection from, SipMessage m) {
                if (!m.isResponse()) {
                    onRequest(m, response -> from.send(response), transport.configName(), from.localAddress(), null);
                }
            }

            @Override
            public void closed(StreamConnection c, String reason) {
                connections.remove(c);
            }
        };
        Channel server = connector.listen(address, listener, connections::add);
        open.add(() -> server.close().syncUninterruptibly());
        InetSocketAddress bound = (InetSocketAddress) server.localAddress();
        log.info("uas listening on {}:{}{}", transport.configName(), hostPort(bound),
                connector.tlsEngine() == null ? "" : " (" + connector.tlsEngine() + ")");
        return bound;
    }

    /**
     * Connects to a proxy over WS or WSS, registers {@code aor} there with a Contact naming this
     * connection's own address, and answers the requests the proxy sends over that connection (its
     * flow: RFC 7118 §5, the proxy never dials a WebSocket client). The registration is refreshed
     * every {@link #REGISTER_REFRESH} on the same connection; a refresh that fails is logged, and calls
     * routed to the address then fail.
     *
     * @param tls the client's TLS settings (trust, suite), for WSS only
     * @return the local address of the registered connection
     * @throws IOException the connection or the upgrade failed, or the REGISTER was not answered 200 in time
     */
    public synchronized InetSocketAddress register(Transport transport, InetSocketAddress proxy, TlsOptions tls,
                                                   String aor) throws IOException {
        if (!transport.webSocket()) {
            throw new IllegalArgumentException(transport.configName() + ": the UAS registers over ws or wss only");
        }
        LegConnector connector = new LegConnector(transport, tls, counters, REGISTER_TIMEOUT, LabEventLoops.uas(),
                oneWayDelay, false);
        StreamConnection.Listener listener = new StreamConnection.Listener() {
            @Override
            public void message(StreamConnection from, SipMessage m) {
                if (!m.isResponse()) {
                    onRequest(m, response -> from.send(response), transport.configName(), from.localAddress(), null);
                } else if ("REGISTER".equals(m.cseqMethod()) && m.status() >= 200) {
                    CompletableFuture<SipMessage> f = registering.remove(m.cseqNumber());
                    if (f != null) {
                        f.complete(m);
                    }
                }
            }

            @Override
            public void closed(StreamConnection c, String reason) {
                connections.remove(c);
                log.debug("uas registration connection {} closed: {}", c, reason);
                registering.values().forEach(f -> f.completeExceptionally(new IOException(c + " closed: " + reason)));
            }
        };
        StreamConnection c = connector.connectNow(proxy, listener);
        connections.add(c);
        try {
            sendRegister(c, aor).get(REGISTER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            c.close();
            throw new IOException("interrupted while registering " + aor, e);
        } catch (ExecutionException | TimeoutException e) {
            c.close();
            throw new IOException("REGISTER of " + aor + " over " + c + ": " + e.getMessage(), e);
        }
        log.info("uas registered {} over {} ({})", aor, c, connector.tlsEngine() == null ? "plain" : connector.tlsEngine());
        later(() -> refresh(c, aor), REGISTER_REFRESH.toMillis());
        return c.localAddress();
    }

    /** Refreshes a WebSocket registration, then schedules the next refresh while the connection is open. */
    private void refresh(StreamConnection c, String aor) {
        if (c.isClosed()) {
            return;
        }
        try {
            sendRegister(c, aor).whenComplete((r, e) -> {
                if (e != null) {
                    log.warn("uas registration refresh of {} over {} failed: {}", aor, c, e.toString());
                }
            });
        } catch (IOException e) {
            log.warn("uas registration refresh of {} over {} failed: {}", aor, c, e.toString());
        }
        later(() -> refresh(c, aor), REGISTER_REFRESH.toMillis());
    }

    /** Sends a REGISTER over {@code c}; the future completes with a 200, or fails with another answer. */
    private CompletableFuture<SipMessage> sendRegister(StreamConnection c, String aor) throws IOException {
        long cseq = registerCSeq.incrementAndGet();
        CompletableFuture<SipMessage> answer = new CompletableFuture<>();
        registering.put(cseq, answer);
        // an answer that never comes leaves nothing behind
        answer.orTimeout(REGISTER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((m, e) -> registering.remove(cseq));
        InetSocketAddress local = c.localAddress();
        InetSocketAddress remote = c.remoteAddress();
        String host = local.getAddress().getHostAddress();
        String contact = "<sip:lab-uas@" + host + ":" + local.getPort() + ";transport=" + c.uriTransport() + ">";
        String domain = aor.substring(aor.indexOf('@') + 1);
        String register = "REGISTER sip:" + domain + " SIP/2.0\r\n"
                + "Via: SIP/2.0/" + c.viaTransport() + " " + host + ":" + local.getPort() + ";rport;branch=z9hG4bK-uas-reg-"
                + cseq + "-" + System.nanoTime() + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:" + aor + ">;tag=uas-reg\r\n"
                + "To: <sip:" + aor + ">\r\n"
                + "Call-ID: uas-reg-" + host + "-" + local.getPort() + "@" + remote.getAddress().getHostAddress() + "\r\n"
                + "CSeq: " + cseq + " REGISTER\r\n"
                + "Contact: " + contact + "\r\n"
                + "Expires: " + REGISTER_EXPIRES.toSeconds() + "\r\n"
                + "Content-Length: 0\r\n\r\n";
        c.send(register.getBytes(StandardCharsets.UTF_8));
        return answer.thenApply(m -> {
            if (m.status() != 200) {
                throw new IllegalStateException("REGISTER answered " + m.startLine());
            }
            return m;
        });
    }

    private static String hostPort(InetSocketAddress a) {
        return a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    /** The counters of this UAS (bytes, handshakes, Timer G retransmissions). */
    public LegCounters counters() {
        return counters;
    }

    /** Requests received per method (retransmissions included). */
    public long requests(String method) {
        LongAdder a = requests.get(method);
        return a == null ? 0 : a.sum();
    }

    /**
     * Limits the INVITEs answered to a rate (a token bucket); the others
     * get 503. The bucket holds a tenth of a second's worth (at least one), so short bursts above
     * the rate are refused too. Emulates a callee of limited capacity, e.g. to see a ramp stop at it.
     *
     * @param perSecond INVITEs per second, 0 for no limit
     */
    public void limitInvites(double perSecond) {
        if (perSecond < 0) {
            throw new IllegalArgumentException("invites per second: " + perSecond + " (expected 0 or more)");
        }
        synchronized (bucket) {
            tokens = Math.max(1, perSecond / 10);
            tokensAtNanos = System.nanoTime();
            invitesPerSecond = perSecond;
        }
    }

    /** INVITEs refused with 503 by {@link #limitInvites}. */
    public long invitesRefused() {
        return refused.sum();
    }

    private boolean admit() {
        double limit = invitesPerSecond;
        if (limit == 0) {
            return true;
        }
        synchronized (bucket) {
            long now = System.nanoTime();
            tokens = Math.min(Math.max(1, limit / 10), tokens + (now - tokensAtNanos) / 1e9 * limit);
            tokensAtNanos = now;
            if (tokens < 1) {
                return false;
            }
            tokens -= 1;
            return true;
        }
    }

    /** 200s to INVITE given up by Timer H (no ACK came). */
    public long timerHExpired() {
        return timerH.sum();
    }

    /** Connections open now. */
    public int openConnections() {
        return connections.size();
    }

    /** Closes every TCP and TLS connection it accepted, as a callee that restarts does; its listeners stay. */
    public void dropConnections() {
        for (StreamConnection c : connections) {
            c.close();
        }
    }

    private interface Reply {
        void send(byte[] response) throws IOException;
    }

    private void onUdp(UdpEndpoint udp, SipMessage m, InetSocketAddress from) {
        if (!m.isResponse()) {
            onRequest(m, response -> udp.send(response, from), "udp", udp.localAddress(), key(m));
        }
    }

    private static String key(SipMessage m) {
        String via = m.topValue("Via");
        return m.callId() + "|" + m.header("CSeq") + "|" + (via == null ? "" : SipMessage.param(via, "branch"));
    }

    /** {@code txKey} non-null on UDP, where retransmissions happen. */
    private void onRequest(SipMessage m, Reply reply, String transport, InetSocketAddress local, String txKey) {
        String method = m.method();
        requests.computeIfAbsent(method, k -> new LongAdder()).increment();
        try {
            if (method.equals("ACK")) {
                awaitingAck.remove(m.callId());
                return;
            }
            if (txKey != null) {
                byte[] last = answered.get(txKey);
                if (last != null) {
                    reply.send(last);
                    return;
                }
            }
            switch (method) {
                case "INVITE" -> {
                    if (!admit()) {
                        // a callee over its capacity: 503 (RFC 3261 §21.5.4), which fails the call
                        refused.increment();
                        byte[] busy = response(m, 503, "Service Unavailable", "uas" + tagCounter.incrementAndGet(),
                                false, local, transport);
                        remember(txKey, busy);
                        reply.send(busy);
                        return;
                    }
                    String tag = "uas" + tagCounter.incrementAndGet();
                    reply.send(response(m, 100, "Trying", null, false, local, transport));
                    reply.send(response(m, 180, "Ringing", tag, false, local, transport));
                    byte[] ok = response(m, 200, "OK", tag, true, local, transport);
                    remember(txKey, ok);
                    reply.send(ok);
                    if (txKey != null) {
                        awaitingAck.put(m.callId(), Boolean.TRUE);
                        later(() -> retransmitOk(m.callId(), ok, reply, T1_MILLIS, T1_MILLIS), T1_MILLIS);
                    }
                }
                case "BYE", "OPTIONS", "CANCEL" -> {
                    byte[] ok = response(m, 200, "OK", null, false, local, transport);
                    remember(txKey, ok);
                    reply.send(ok);
                }
                default -> {
                    byte[] no = response(m, 501, "Not Implemented", null, false, local, transport);
                    remember(txKey, no);
                    reply.send(no);
                }
            }
        } catch (IOException e) {
            log.debug("uas reply to {} failed: {}", m, e.toString());
        }
    }

    private void remember(String txKey, byte[] response) {
        if (txKey != null) {
            answered.put(txKey, response);
            later(() -> answered.remove(txKey), 64 * T1_MILLIS);
        }
    }

    /** Timer G: doubling up to T2 until the ACK; Timer H: 64 × T1 after the first 200. */
    private void retransmitOk(String callId, byte[] ok, Reply reply, long interval, long elapsed) {
        if (awaitingAck.get(callId) == null) {
            return;
        }
        if (elapsed >= 64 * T1_MILLIS) {
            awaitingAck.remove(callId);
            timerH.increment();
            return;
        }
        try {
            counters.retransmissions.increment();
            reply.send(ok);
        } catch (IOException e) {
            log.debug("uas 200 retransmission for {} failed: {}", callId, e.toString());
        }
        long next = Math.min(interval * 2, T2_MILLIS);
        later(() -> retransmitOk(callId, ok, reply, next, elapsed + next), next);
    }

    /** Schedules on the UAS's timer; a message read while the UAS closes (its timer shut down) schedules nothing. */
    private void later(Runnable task, long millis) {
        try {
            timer.schedule(task, millis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("uas closing: timer task dropped");
        }
    }

    private static byte[] response(SipMessage req, int status, String reason, String toTag, boolean sdpAnswer,
                                   InetSocketAddress local, String transport) {
        StringBuilder b = new StringBuilder(640);
        b.append("SIP/2.0 ").append(status).append(' ').append(reason).append("\r\n");
        for (String via : req.headers("Via")) {
            b.append("Via: ").append(via).append("\r\n");
        }
        b.append("From: ").append(req.header("From")).append("\r\n");
        String to = req.header("To");
        if (toTag != null && SipMessage.param(to, "tag") == null) {
            to = to + ";tag=" + toTag;
        }
        b.append("To: ").append(to).append("\r\n");
        b.append("Call-ID: ").append(req.callId()).append("\r\n");
        b.append("CSeq: ").append(req.header("CSeq")).append("\r\n");
        if (req.method().equals("INVITE") && status > 100 && status < 300) {
            // the dialog's route set comes from Record-Route, copied into every response that makes one
            // (RFC 3261 §12.1.1)
            for (String rr : req.headers("Record-Route")) {
                b.append("Record-Route: ").append(rr).append("\r\n");
            }
            b.append("Contact: <sip:lab-uas@").append(local.getAddress().getHostAddress()).append(':')
                    .append(local.getPort()).append(";transport=").append(transport.toLowerCase(Locale.ROOT))
                    .append(">\r\n");
        }
        if (sdpAnswer) {
            b.append("Content-Type: application/sdp\r\n");
            b.append("Content-Length: ").append(SDP_BYTES).append("\r\n\r\n").append(SDP);
        } else {
            b.append("Content-Length: 0\r\n\r\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void close() {
        timer.shutdownNow();
        for (Closeable c : open) {
            try {
                c.close();
            } catch (IOException e) {
                log.debug("uas close of {} failed: {}", c, e.toString());
            }
        }
        for (StreamConnection c : connections) {
            c.close();
        }
    }
}
