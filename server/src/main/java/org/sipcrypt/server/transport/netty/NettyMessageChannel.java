package org.sipcrypt.server.transport.netty;

import gov.nist.javax.sip.ListeningPointImpl;
import gov.nist.javax.sip.SipProviderImpl;
import gov.nist.javax.sip.header.CSeq;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.RawMessageChannel;
import gov.nist.javax.sip.stack.SIPClientTransaction;
import gov.nist.javax.sip.stack.SIPServerTransaction;
import gov.nist.javax.sip.stack.SIPTransaction;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import gov.nist.javax.sip.stack.ServerRequestInterface;
import gov.nist.javax.sip.stack.ServerResponseInterface;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.text.ParseException;
import java.util.Objects;
import javax.sip.ClientTransaction;
import javax.sip.message.Request;
import org.sipcrypt.server.transport.AddressText;
import org.sipcrypt.server.transport.BadRequestResponse;
import org.sipcrypt.server.transport.kept.CompletedTransactions;
import org.sipcrypt.server.transport.EarlyRelays;
import org.sipcrypt.server.transport.MessageDump;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.sipcrypt.server.transport.SipHead;
import org.sipcrypt.server.transport.TopVia;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.TransportCounters;
import org.sipcrypt.server.transport.fastpath.FastPath;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JAIN-SIP message channel on a Netty channel: offers each message a framer delivered to the
 * transport's {@link FastPath} first, parses what it leaves, answers or drops the malformed ones,
 * and hands the rest to the JAIN-SIP transaction layer (RFC 3261 §18.2.1, §18.1.2). Subclasses say how bytes go out (a datagram, or a connection).
 * Threading: {@link #receive} runs on a SIP worker lane; sending is thread-safe and never blocks
 * an event loop.
 */
abstract class NettyMessageChannel extends MessageChannel implements RawMessageChannel, Flow.Carrier {

    private static final Logger log = LoggerFactory.getLogger(NettyMessageChannel.class);
    private static final RateLimitedLog badInputLog = new RateLimitedLog(log);
    /** TRACE message dumps, the logger the README names; the same one JAIN-SIP's own transports feed. */
    private static final Logger messages = LoggerFactory.getLogger(MessageDump.LOGGER);

    protected final NettyMessageProcessor processor;
    protected final SIPTransactionStack stack;
    protected final TransportCounters counters;

    private final InetSocketAddress peer;
    /** Whether the request being received was looked up among the kept transactions from its bytes already. */
    private boolean keptLookedUp;
    /** This channel as the fast path sees it. */
    private final FastPath.Channel fastPathChannel = new FastPathChannel();

    /** @param peer the address this channel talks to */
    NettyMessageChannel(NettyMessageProcessor processor, InetSocketAddress peer) {
        this.processor = processor;
        this.peer = Objects.requireNonNull(peer, "peer");
        this.messageProcessor = processor;
        this.stack = processor.getSIPStack();
        this.counters = processor.transport().counters();
    }

    /** The transport this channel carries. */
    abstract Transport transportKind();

    /** The number of this channel's connection, unique in this process run; 0 for UDP. */
    long connectionNumber() {
        return 0;
    }

    /** The flow of what arrives here: this listening socket, the peer, and for TCP and TLS this connection. */
    @Override
    public final Flow flow() {
        return new Flow(transportKind(), processor.localAddress(), peer, connectionNumber());
    }

    /** Where the bytes being received came from: the peer (a connection's, or a datagram's sender). */
    final InetSocketAddress source() {
        return peer;
    }

    /**
     * Sends bytes that answer the message being received, back the way it came; counted as dropped
     * ({@code send_failed}) when they cannot be.
     */
    final void reply(byte[] bytes) {
        try {
            writeBack(bytes);
        } catch (IOException e) {
            countDropped("send_failed");
        }
    }

    /** Writes bytes back the way the message being received came. */
    abstract void writeBack(byte[] bytes) throws IOException;

    /** Sends a message's bytes to an address; {@link #sendMessage(byte[], InetAddress, int, boolean)} has dumped them. */
    abstract void send(byte[] message, InetSocketAddress to) throws IOException;

    /**
     * Sends a stack message's bytes to an address, dumped already. {@code request} is the request
     * they encode (null for a response): a transport that queues it while its connection is set up
     * reports it to the transport's {@link RequestsNotSent} when that fails, since the sender had
     * its answer (none thrown) already.
     */
    void send(byte[] message, InetSocketAddress to, SIPRequest request) throws IOException {
        send(message, to);
    }

    /** Counts a message dropped without an answer. */
    abstract void countDropped(String reason);

    /**
     * Parses one framed message and delivers it to the stack. Malformed requests that can be
     * answered get 400 (505 for another SIP version); others are dropped and counted.
     */
    final void receive(SipHead head) {
        byte[] bytes = head.bytes();
        if (!transportKind().reliable() && SipMessageChecks.contentLengthExceedsDatagram(head)) {
            reject(bytes, "content_length", "Content-Length exceeds datagram", null);
            return;
        }
        // one rule for every reader that acts on the bytes: a message it names goes to the parse
        String irregular = head.irregularity();
        FastPath.Outcome fast = irregular == null && processor.transport().settings().fastPath()
                ? processor.transport().fastPath().handle(head, fastPathChannel) : FastPath.Outcome.NOT_SETTLED;
        if (fast == FastPath.Outcome.SETTLED) {
            return;
        }
        keptLookedUp = fast == FastPath.Outcome.KEPT_LOOKED_UP;
        if ("header_name".equals(irregular)) {
            // RFC 3261 §7.3.1, §25.1: a header name is a token. Such a line ("Call-ID\x01:") is
            // one header to a reader that trims the name and another, or an error, to the parse
            reject(bytes, "bad_header_name", "Bad header name", null);
            return;
        }
        SipMessageChecks.ParseErrors errors = new SipMessageChecks.ParseErrors();
        SIPMessage message;
        try {
            message = stack.getMessageParserFactory().createMessageParser(stack)
                    .parseSIPMessage(bytes, true, false, errors);
        } catch (ParseException | RuntimeException e) {
            String reason = errors.failedHeader != null ? "Bad " + errors.failedHeader + " header" : "Malformed message";
            reject(bytes, errors.failedHeader != null ? "bad_header" : "unparsable", reason, e);
            return;
        }
        if (message == null) {
            return;
        }
        if (message.getTopmostVia() == null || message.getFrom() == null || message.getTo() == null
                || message.getCallId() == null || message.getCSeq() == null) {
            reject(bytes, "missing_header", "Missing " + SipMessageChecks.missingHeader(message) + " header", null);
            return;
        }
        String duplicate = SipMessageChecks.duplicatedHeader(head);
        if (duplicate != null) {
            // RFC 3261 §7.3.1 allows one of each; RFC 4475 §3.1.2.19 (and the Content-Length cases of
            // §3.1.2.x) ask for a 400 rather than guessing which one the sender meant.
            reject(bytes, "duplicate_header", "Duplicate " + duplicate + " header", null);
            return;
        }
        if (message instanceof SIPResponse response) {
            int status = response.getStatusCode();
            if (status < 100 || status > 699) {
                // RFC 3261 §7.2: status codes are 100-699; anything else is not forwarded or acted on
                countDropped("bad_status");
                badInputLog.warn("drop_bad_status", "{} {}: dropped response with status {}",
                        transportKind().configName(), source(), status);
                return;
            }
        }
        if (message instanceof SIPRequest request) {
            // the parser normalises the version, so it is read from the raw request line
            if (!head.requestLineIsSip20()) {
                rejectRequest(bytes, 505, "bad_version", "Version Not Supported");
                return;
            }
            if (!request.getMethod().equalsIgnoreCase(request.getCSeq().getMethod())) {
                rejectRequest(bytes, 400, "cseq_mismatch", "CSeq method does not match request method");
                return;
            }
            if (!isReliable() && !answerableOver(request.getTopmostVia().getTransport())) {
                // RFC 3261 §18.2.2: over UDP the answer goes by the top Via's transport; with no
                // listening point for it the stack's transaction fails sending (its 100 Trying
                // included) on a null listening point. The answer goes back the way it came instead.
                reject(bytes, "via_transport", "Unsupported Transport In Via", null);
                return;
            }
            if (request.getMaxForwards() == null) {
                // RFC 3261 §16.6 step 3: a request without Max-Forwards is forwarded with 70
                request.setHeader(SipMessageChecks.defaultMaxForwards());
            }
            try {
                request.checkHeaders();
            } catch (ParseException e) {
                String what = e.getMessage() == null ? "header" : e.getMessage().replace("Missing a required header : ", "");
                rejectRequest(bytes, 400, "missing_header", "Missing " + what + " header");
                return;
            }
        }
        try {
            processMessage(message);
        } catch (Exception e) {
            counters.messageDropped("stack_error");
            badInputLog.warn("stack_error", "{} {}: stack failed on {}: {}", transportKind().configName(), source(),
                    message.getFirstLine(), e.toString());
        }
    }

    /**
     * Whether the stack has a listening point for {@code transport}, as its server transactions
     * look one up to send an answer over UDP (RFC 3261 §18.2.2).
     */
    private boolean answerableOver(String transport) {
        ListeningPointImpl lp = processor.getListeningPoint();
        SipProviderImpl provider = lp == null ? null : lp.getProvider();
        return provider == null || transport != null && provider.getListeningPoint(transport) != null;
    }

    private void reject(byte[] bytes, String tag, String reason, Exception cause) {
        if (!rejectRequest(bytes, 400, tag, reason)) {
            countDropped(tag);
            badInputLog.warn("drop_" + tag, "{} {}: dropped unanswerable message: {}{}", transportKind().configName(),
                    source(), reason, cause == null ? "" : " (" + cause.getMessage() + ")");
        }
    }

    /** Sends an error built from the raw request; false when it cannot be answered. */
    private boolean rejectRequest(byte[] bytes, int status, String tag, String reason) {
        byte[] response = BadRequestResponse.build(bytes, status, reason);
        if (response == null) {
            return false;
        }
        counters.requestRejected(tag);
        badInputLog.warn("reject_" + tag, "{} {}: answered {} {}", transportKind().configName(), source(), status, reason);
        answer(response);
        return true;
    }

    /** Replies with bytes built here (not by the stack), dumped at TRACE like every message. Never blocks. */
    final void answer(byte[] bytes) {
        dumpSent(bytes, source());
        reply(bytes);
    }

    /** The TRACE dump of a message leaving: every send of a subclass goes through here. */
    final void dumpSent(byte[] bytes, InetSocketAddress to) {
        if (messages.isTraceEnabled()) {
            messages.trace("{} sent {} -> {}\n{}", transportKind().configName(), localText(), to,
                    MessageDump.text(new String(bytes, java.nio.charset.StandardCharsets.UTF_8)));
        }
    }

    private String localText() {
        return processor.getIpAddress().getHostAddress() + ":" + processor.getPort();
    }

    /**
     * Hands a parsed message to the transaction layer: tags the top Via of a request with
     * {@code received}/{@code rport} (RFC 3261 §18.2.1, RFC 3581 §4), then lets the stack find or
     * create the transaction. Runs on a SIP worker lane (or JAIN-SIP's self-routing executor).
     */
    @Override
    public void processMessage(SIPMessage message) throws Exception {
        InetSocketAddress src = source();
        if (messages.isTraceEnabled()) {
            messages.trace("{} received {} -> {}\n{}", transportKind().configName(), src, localText(),
                    MessageDump.text(message.toString()));
        }
        message.setRemoteAddress(src.getAddress());
        message.setRemotePort(src.getPort());
        message.setLocalAddress(processor.getIpAddress());
        message.setLocalPort(processor.getPort());
        message.setPeerPacketSourceAddress(src.getAddress());
        message.setPeerPacketSourcePort(src.getPort());
        if (message instanceof SIPRequest request) {
            // the SIP layer reads the request's flow from it (RFC 5626: the registrar, the proxy's flow tokens)
            request.setMessageChannel(this);
            Via via = request.getTopmostVia();
            boolean rport = via.hasParameter(Via.RPORT);
            if (rport || !AddressText.sameHost(via.getHost(), src.getAddress())) {
                via.setParameter(Via.RECEIVED, AddressText.of(src.getAddress()));
            }
            if (rport) {
                via.setParameter(Via.RPORT, Integer.toString(src.getPort()));
            }
            if (via.hasParameter(ALIAS)) {
                aliasOffered(via.getHost(), via.getPort());
            }
            if (absorbedRetransmission(request)) {
                return;
            }
            String conflict = branchConflict(request);
            if (conflict != null) {
                counters.requestRejected("branch_reused");
                badInputLog.warn("reject_branch_reused", "{} {}: {} reuses branch {} of another transaction ({})",
                        transportKind().configName(), src, request.getMethod(), via.getBranch(), conflict);
                if (!Request.ACK.equals(request.getMethod())) {
                    answer(request.createResponse(SIPResponse.BAD_REQUEST, "Via Branch Already In Use")
                            .encodeAsBytes(getTransport()));
                }
                return;
            }
            ServerRequestInterface handler = stack.newSIPServerRequest(request, this);
            if (handler == null) {
                counters.messageDropped("stack_refused");
                answer(request.createResponse(SIPResponse.SERVICE_UNAVAILABLE).encodeAsBytes(getTransport()));
                return;
            }
            try {
                handler.processRequest(request, this);
            } finally {
                if (handler instanceof SIPServerTransaction tx && !tx.passToListener()) {
                    tx.releaseSem();
                }
            }
        } else {
            SIPResponse response = (SIPResponse) message;
            try {
                response.checkHeaders();
            } catch (ParseException e) {
                countDropped("bad_response");
                return;
            }
            ServerResponseInterface handler = stack.newSIPServerResponse(response, this);
            if (handler == null) {
                return;
            }
            try {
                if (handler instanceof SIPClientTransaction ct && !ct.checkFromTag(response)) {
                    countDropped("bad_from_tag");
                    return;
                }
                handler.processResponse(response, this);
            } finally {
                if (handler instanceof SIPTransaction tx && !tx.passToListener()) {
                    tx.releaseSem();
                }
            }
        }
    }

    /** The Via parameter of RFC 5923 §5: reuse this connection for requests to my sent-by. */
    static final String ALIAS = "alias";

    /**
     * A request's top Via carries {@code alias} (RFC 5923): the sender asks that what this server
     * sends to {@code host}:{@code port} ({@code -1} for none) go over this connection. Ignored here,
     * as over UDP, and counted as {@code sip.aliases{result=not_tls}}; the stream channels decide.
     * On a SIP worker lane.
     */
    void aliasOffered(String host, int port) {
        counters.alias(ConnectionAliases.Result.NOT_TLS.tag());
    }

    /**
     * RFC 3261 §17.2.3: a request matches a server transaction when its top Via's branch, its
     * sent-by and its method (INVITE for an ACK) are those of the request that created it. The
     * stack looks transactions up by branch alone and would take a different request reusing a
     * branch for a retransmission (or refuse it a transaction), silently. This check runs first:
     * what a branch match alone would swallow is named here, and the request is answered 400
     * (an ACK, which has no answer, is dropped); both are counted. CANCEL has transactions of its
     * own (the stack keys them apart), so a CANCEL is checked against CANCELs only.
     *
     * @return why the request does not belong to the transaction its branch names, or null
     */
    private String branchConflict(SIPRequest request) {
        String branch = request.getTopmostVia().getBranch();
        if (!TopVia.rfc3261Branch(branch)) {
            // RFC 2543 clients: the stack matches them on the whole request, not the branch
            return null;
        }
        SIPTransaction found = stack.findTransaction(request.getTransactionId(), true);
        if (!(found instanceof SIPServerTransaction tx) || tx.getOriginalRequest() == null) {
            return null;
        }
        SIPRequest original = tx.getOriginalRequest();
        if (!request.getTopmostVia().getSentBy().equals(original.getTopmostVia().getSentBy())) {
            return "sent-by " + request.getTopmostVia().getSentBy().encode() + ", not "
                    + original.getTopmostVia().getSentBy().encode();
        }
        String method = request.getMethod();
        String expected = original.getMethod();
        boolean sameMethod = method.equals(expected)
                || Request.ACK.equals(method) && Request.INVITE.equals(expected);
        return sameMethod ? null : "method " + method + ", not " + expected;
    }

    @Override
    public SIPTransactionStack getSIPStack() {
        return stack;
    }

    @Override
    public String getTransport() {
        return transportKind().sipName();
    }

    @Override
    public boolean isReliable() {
        return transportKind().reliable();
    }

    @Override
    public boolean isSecure() {
        return false;
    }

    /**
     * RFC 3261 §17.2.2: a retransmission of a non-INVITE request whose transaction has completed
     * is answered with the final response kept for it, without reaching the transaction layer; so
     * is one of an INVITE the server rejected itself (§17.2.1), whose ACK is absorbed here too: it
     * ends a transaction the stack no longer holds and must not reach the proxy.
     */
    private boolean absorbedRetransmission(SIPRequest request) {
        CompletedTransactions completed = processor.transport().completedTransactions();
        if (isReliable() || completed == null || keptLookedUp) {
            return false;
        }
        boolean ack = Request.ACK.equals(request.getMethod());
        return processor.transport().fastPath().absorbed(completed, ack, CompletedTransactions.key(
                request.getTopmostVia(), ack ? Request.INVITE : request.getMethod()), fastPathChannel);
    }

    /** The TRACE dump of a request settled from its bytes, saying how. */
    private void dumpReceived(byte[] bytes, String how) {
        if (messages.isTraceEnabled()) {
            messages.trace("{} received {} -> {} ({})\n{}", transportKind().configName(), source(), localText(), how,
                    MessageDump.text(new String(bytes, java.nio.charset.StandardCharsets.UTF_8)));
        }
    }

    @Override
    protected final void sendMessage(byte[] message, InetAddress address, int port, boolean retry) throws IOException {
        InetSocketAddress to = new InetSocketAddress(address, port);
        dumpSent(message, to);
        send(message, to);
    }

    /**
     * How a transaction sends: as JAIN-SIP's own, but a request keeps its identity down to the
     * transport, which reports it if it never leaves ({@link #send(byte[], InetSocketAddress, SIPRequest)}).
     */
    @Override
    public void sendMessage(SIPMessage message, InetAddress address, int port) throws IOException {
        if (!(message instanceof SIPRequest request)) {
            super.sendMessage(message, address, port);
            return;
        }
        long began = System.currentTimeMillis();
        byte[] bytes = request.encodeAsBytes(getTransport());
        InetSocketAddress to = new InetSocketAddress(address, port);
        dumpSent(bytes, to);
        send(bytes, to, request);
        request.setRemoteAddress(address);
        request.setRemotePort(port);
        request.setLocalPort(getPort());
        request.setLocalAddress(processor.getIpAddress());
        logMessage(request, address, port, began);
    }

    @Override
    public void sendMessage(SIPMessage message) throws IOException {
        InetSocketAddress peer = peer();
        byte[] bytes = message.encodeAsBytes(getTransport());
        dumpSent(bytes, peer);
        send(bytes, peer, message instanceof SIPRequest request ? request : null);
        if (message instanceof SIPResponse response && !isReliable() && response.getStatusCode() >= 200) {
            keepFinalResponse(response, bytes, peer);
        }
        message.setRemoteAddress(peer.getAddress());
        message.setRemotePort(peer.getPort());
        message.setLocalAddress(processor.getIpAddress());
        message.setLocalPort(processor.getPort());
    }

    /**
     * Keeps the final response of a non-INVITE transaction for its retransmissions (Timer J), and
     * that of an INVITE the server rejected without its transaction until the ACK (Timer H).
     */
    private void keepFinalResponse(SIPResponse response, byte[] bytes, InetSocketAddress peer) {
        CompletedTransactions completed = processor.transport().completedTransactions();
        CSeq cseq = (CSeq) response.getCSeq();
        Via via = response.getTopmostVia();
        if (completed == null || cseq == null || via == null || Request.INVITE.equals(cseq.getMethod())
                && response.getApplicationData() != CompletedTransactions.Mark.REJECTED_INVITE) {
            return;
        }
        completed.completed(CompletedTransactions.key(via, cseq.getMethod()), bytes, peer);
    }

    /** The peer this channel talks to. */
    final InetSocketAddress peer() {
        return peer;
    }

    @Override
    public String getPeerAddress() {
        return peer().getAddress().getHostAddress();
    }

    @Override
    protected InetAddress getPeerInetAddress() {
        return peer().getAddress();
    }

    @Override
    protected String getPeerProtocol() {
        return getTransport();
    }

    @Override
    public int getPeerPort() {
        return peer().getPort();
    }

    @Override
    public int getPeerPacketSourcePort() {
        return source().getPort();
    }

    @Override
    public InetAddress getPeerPacketSourceAddress() {
        return source().getAddress();
    }

    @Override
    public String getKey() {
        return MessageChannel.getKey(peer().getAddress(), peer().getPort(), getTransport());
    }

    @Override
    public String getViaHost() {
        return processor.getIpAddress().getHostAddress();
    }

    @Override
    public int getViaPort() {
        return processor.getPort();
    }

    @Override
    public String toString() {
        return transportKind().configName() + " " + localText() + "<->" + peer().getAddress().getHostAddress() + ":"
                + peer().getPort();
    }

    /**
     * The fast path's view of this channel: its transport and addresses, the stack's transactions
     * by branch, and the ways out.
     * Threading: as the channel's; used on the SIP worker lane of the message being received.
     */
    private final class FastPathChannel implements FastPath.Channel {

        @Override
        public Transport transport() {
            return transportKind();
        }

        @Override
        public InetSocketAddress source() {
            return NettyMessageChannel.this.source();
        }

        @Override
        public InetSocketAddress local() {
            return processor.localAddress();
        }

        @Override
        public boolean holdsServerTransaction(String branch) {
            return stack.findTransaction(branch, true) != null;
        }

        @Override
        public ClientTransaction clientTransaction(String branch) {
            return stack.findTransaction(branch, false) instanceof SIPClientTransaction ct ? ct : null;
        }

        @Override
        public void send(byte[] bytes, InetSocketAddress to) {
            try {
                sendMessage(bytes, to.getAddress(), to.getPort(), false);
            } catch (IOException e) {
                countDropped("send_failed");
            }
        }

        @Override
        public void sendRelayed(EarlyRelays.Relay relay) {
            NettyMessageChannel channel = relay.upstream() instanceof SIPServerTransaction st
                    && st.getMessageChannel() instanceof NettyMessageChannel c ? c : null;
            InetSocketAddress to = channel != null ? channel.peer() : relay.to();
            try {
                (channel != null ? channel : NettyMessageChannel.this).sendMessage(relay.message(), to.getAddress(),
                        to.getPort(), false);
            } catch (IOException e) {
                countDropped("send_failed");
            }
        }

        @Override
        public void answer(byte[] bytes) {
            NettyMessageChannel.this.answer(bytes);
        }

        @Override
        public void dumpReceived(byte[] bytes, String how) {
            NettyMessageChannel.this.dumpReceived(bytes, how);
        }
    }
}
