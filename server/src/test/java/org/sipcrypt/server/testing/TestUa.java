package org.sipcrypt.server.testing;

import gov.nist.core.CommonLogger;
import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.stack.SIPServerTransaction;
import gov.nist.javax.sip.stack.timers.DefaultSipTimer;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.text.ParseException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sip.ClientTransaction;
import javax.sip.Dialog;
import javax.sip.DialogTerminatedEvent;
import javax.sip.IOExceptionEvent;
import javax.sip.InvalidArgumentException;
import javax.sip.ListeningPoint;
import javax.sip.RequestEvent;
import javax.sip.ResponseEvent;
import javax.sip.ServerTransaction;
import javax.sip.SipException;
import javax.sip.SipFactory;
import javax.sip.SipListener;
import javax.sip.SipProvider;
import javax.sip.TimeoutEvent;
import javax.sip.TransactionTerminatedEvent;
import javax.sip.address.Address;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.ContactHeader;
import javax.sip.header.HeaderFactory;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.sipcrypt.server.sip.Slf4jServerLogger;
import org.sipcrypt.server.sip.Slf4jStackLogger;
import org.sipcrypt.server.transport.Transport;

/**
 * A SIP user agent for end-to-end tests, on its own JAIN-SIP stack listening on 127.0.0.1 over one
 * transport. As a client it registers, sends any request through a proxy (a preloaded loose
 * Route, RFC 3261 §8.1.2) and collects the responses; places calls whose ACK and BYE follow the
 * dialog's route set (RFC 3261 §12.2.1.1, §13.2.2.4); and cancels pending INVITEs (§9.1). As a
 * server it answers each method as scripted with {@link Answer}, handles CANCEL with 200 and 487
 * (§9.2) and records every request it receives.
 * Threading: thread-safe; the stack's event thread answers requests and fills the exchanges, test
 * threads wait on them against deadlines.
 */
public final class TestUa implements AutoCloseable {

    /** How long the convenience methods wait for an answer. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static final String HOST = "127.0.0.1";
    private static final AtomicInteger stacks = new AtomicInteger();

    static {
        // JAIN-SIP's static loggers resolve through this field, also before any server stack exists
        CommonLogger.legacyLogger = new Slf4jStackLogger();
        CommonLogger.useLegacyLogger = true;
    }

    private final String user;
    private final String domain;
    private final Transport transport;
    private final SipStackImpl stack;
    private final SipProvider provider;
    private final ListeningPoint listeningPoint;
    private final MessageFactory messages;
    private final HeaderFactory headers;
    private final AddressFactory addresses;
    private final String registrationCallId = UUID.randomUUID() + "@" + HOST;
    private final AtomicLong registrationCseq = new AtomicLong();
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private final List<Request> received = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private Dialog answeredDialog;

    private TestUa(String user, String domain, Transport transport) throws Exception {
        this.user = Objects.requireNonNull(user, "user");
        this.domain = Objects.requireNonNull(domain, "domain");
        this.transport = Objects.requireNonNull(transport, "transport");
        Properties p = new Properties();
        p.setProperty("javax.sip.STACK_NAME", "testua-" + user + "-" + stacks.incrementAndGet());
        p.setProperty("javax.sip.AUTOMATIC_DIALOG_SUPPORT", "on");
        // Not the NIO factory: its outgoing TCP connect (NIOHandler.openOutgoingConnection in
        // jain-sip-ri 1.3.0-91) drops the socket it has just opened from its table, opens a second
        // one and now and then never writes the first request on either.
        p.setProperty("gov.nist.javax.sip.MESSAGE_PROCESSOR_FACTORY",
                "gov.nist.javax.sip.stack.OIOMessageProcessorFactory");
        // one thread takes datagrams off the socket, so a 180 and the 200 right behind it are not
        // handed to the transaction in the wrong order (which would drop the 180)
        p.setProperty("gov.nist.javax.sip.THREAD_POOL_SIZE", "1");
        p.setProperty("gov.nist.javax.sip.STACK_LOGGER", Slf4jStackLogger.class.getName());
        p.setProperty("gov.nist.javax.sip.SERVER_LOGGER", Slf4jServerLogger.class.getName());
        p.setProperty("gov.nist.javax.sip.LOG_MESSAGE_CONTENT", "false");
        p.setProperty("gov.nist.javax.sip.TIMER_CLASS_NAME", QuickStopTimer.class.getName());
        this.stack = new SipStackImpl(p);
        try {
            this.listeningPoint = listen(stack, transport);
            this.provider = stack.createSipProvider(listeningPoint);
            this.provider.addSipListener(new Listener());
        } catch (Exception | Error e) {
            stop(stack);
            throw e;
        }
        SipFactory factory = SipFactory.getInstance();
        this.messages = factory.createMessageFactory();
        this.headers = factory.createHeaderFactory();
        this.addresses = factory.createAddressFactory();
        answers.put(Request.INVITE, Answer.ringThenOk());
    }

    /** A user agent for {@code sip:user@127.0.0.1}. */
    public static TestUa start(String user, Transport transport) throws Exception {
        return new TestUa(user, HOST, transport);
    }

    /** A user agent for {@code sip:user@domain}, e.g. a domain a server serves by its {@code domain} key. */
    public static TestUa start(String user, String domain, Transport transport) throws Exception {
        return new TestUa(user, domain, transport);
    }

    /** JAIN-SIP refuses port 0: take a port the OS just handed out, and try again when it was taken meanwhile. */
    private static ListeningPoint listen(SipStackImpl stack, Transport transport) throws Exception {
        for (int attempt = 1; ; attempt++) {
            int port = freePort(transport);
            try {
                return stack.createListeningPoint(HOST, port, transport.sipName());
            } catch (InvalidArgumentException e) {
                if (attempt == 10) {
                    throw new IOException("no free " + transport.configName() + " port after " + attempt + " tries", e);
                }
            }
        }
    }

    private static int freePort(Transport transport) throws IOException {
        InetAddress loopback = InetAddress.getByName(HOST);
        if (transport == Transport.UDP) {
            try (DatagramSocket s = new DatagramSocket(0, loopback)) {
                return s.getLocalPort();
            }
        }
        try (ServerSocket s = new ServerSocket(0, 1, loopback)) {
            return s.getLocalPort();
        }
    }

    // ---- identity and message building ---------------------------------------------------

    /** The transport this agent listens and sends on. */
    public Transport transport() {
        return transport;
    }

    /** The port this agent listens on. */
    public int port() {
        return listeningPoint.getPort();
    }

    /** This agent's address-of-record, {@code sip:user@domain}. */
    public SipURI aor() {
        return uri(user, domain);
    }

    /** This agent's contact, {@code sip:user@127.0.0.1:port;transport=x}. */
    public SipURI contactUri() {
        SipURI u = uri(user, HOST);
        u.setPort(port());
        try {
            u.setTransportParam(transport.configName());
        } catch (ParseException e) {
            throw new IllegalStateException(e);
        }
        return u;
    }

    /** {@code sip:user@host} (user may be null). */
    public SipURI uri(String user, String host) {
        try {
            return addresses.createSipURI(user, host);
        } catch (ParseException e) {
            throw new IllegalArgumentException("user " + user + ", host " + host, e);
        }
    }

    /** The header factory, for tests that add or change headers before sending. */
    public HeaderFactory headers() {
        return headers;
    }

    /** The address factory. */
    public AddressFactory addresses() {
        return addresses;
    }

    /** A Contact header for a URI with an expires parameter (-1: none). */
    public ContactHeader contact(SipURI uri, int expires) throws ParseException, InvalidArgumentException {
        ContactHeader c = headers.createContactHeader(addresses.createAddress(uri));
        if (expires >= 0) {
            c.setExpires(expires);
        }
        return c;
    }

    /**
     * An out-of-dialog request from this agent to {@code requestUri}, sent through {@code proxy}
     * (a preloaded Route), with a new Call-ID, CSeq 1, Max-Forwards 70 and this agent's Contact.
     */
    public Request newRequest(String method, SipURI requestUri, InetSocketAddress proxy) throws Exception {
        Address to = addresses.createAddress(uri(requestUri.getUser(), requestUri.getHost()));
        return build(method, requestUri, proxy, to, provider.getNewCallId().getCallId(), 1);
    }

    /**
     * A REGISTER for this agent's address-of-record at {@code registrar}, with this agent's
     * registration Call-ID and the next CSeq (RFC 3261 §10.2), and neither Contact nor Expires.
     */
    public Request newRegister(InetSocketAddress registrar) throws Exception {
        return newRegister(registrar, registrationCseq.incrementAndGet());
    }

    /** As {@link #newRegister(InetSocketAddress)} with a given CSeq (for out-of-order tests). */
    public Request newRegister(InetSocketAddress registrar, long cseq) throws Exception {
        registrationCseq.accumulateAndGet(cseq, Math::max);
        SipURI requestUri = uri(null, domain);
        Request r = build(Request.REGISTER, requestUri, registrar, addresses.createAddress(aor()),
                registrationCallId, cseq);
        r.removeHeader(ContactHeader.NAME);
        return r;
    }

    private Request build(String method, SipURI requestUri, InetSocketAddress proxy, Address to, String callId,
                          long cseq) throws Exception {
        Address from = addresses.createAddress(aor());
        ViaHeader via = headers.createViaHeader(HOST, port(), transport.sipName(), null);
        via.setRPort();
        Request r = messages.createRequest(requestUri, method, headers.createCallIdHeader(callId),
                headers.createCSeqHeader(cseq, method),
                headers.createFromHeader(from, Long.toHexString(System.nanoTime())),
                headers.createToHeader(to, null), new ArrayList<>(List.of(via)),
                headers.createMaxForwardsHeader(70));
        r.addHeader(headers.createContactHeader(addresses.createAddress(contactUri())));
        r.addHeader(headers.createRouteHeader(addresses.createAddress(routeUri(proxy))));
        return r;
    }

    /** {@code sip:host:port;transport=x;lr} of a proxy reached on this agent's transport. */
    public SipURI routeUri(InetSocketAddress proxy) throws ParseException {
        SipURI u = uri(null, proxy.getAddress().getHostAddress());
        u.setPort(proxy.getPort());
        u.setTransportParam(transport.configName());
        u.setLrParam();
        return u;
    }

    /** The Contact headers of a message, in order. */
    public static List<ContactHeader> contacts(javax.sip.message.Message m) {
        List<ContactHeader> out = new ArrayList<>();
        java.util.ListIterator<?> it = m.getHeaders(ContactHeader.NAME);
        while (it != null && it.hasNext()) {
            out.add((ContactHeader) it.next());
        }
        return out;
    }

    // ---- client side -----------------------------------------------------------------------

    /** Registers this agent's contact for {@code expires} seconds and returns the final response. */
    public Response register(InetSocketAddress registrar, int expires) throws Exception {
        return register(registrar, expires, contactUri());
    }

    /** Registers this agent's contact for 600 s, failing the test unless the registrar answers 200. */
    public void registerAt(InetSocketAddress registrar) throws Exception {
        Response r = register(registrar, 600);
        if (r == null || r.getStatusCode() != Response.OK) {
            throw new AssertionError("REGISTER of " + aor() + " at " + registrar + " answered " + r);
        }
    }

    /** Registers a contact for this agent's address-of-record and returns the final response. */
    public Response register(InetSocketAddress registrar, int expires, SipURI contact) throws Exception {
        Request r = newRegister(registrar);
        r.addHeader(contact(contact, -1));
        r.addHeader(headers.createExpiresHeader(expires));
        return send(r).awaitFinal(TIMEOUT);
    }

    /** Sends a request on a new client transaction. */
    public SipExchange send(Request request) throws SipException {
        ClientTransaction ct = provider.getNewClientTransaction(request);
        SipExchange x = new SipExchange(request, ct, this::errors);
        ct.setApplicationData(x);
        ct.sendRequest();
        return x;
    }

    /**
     * Answers the 401 or 407 that ended {@code challenged} the way a JAIN-SIP application does: with
     * JAIN-SIP's own digest client ({@code AuthenticationHelper}, MD5 only), which resends the
     * request with credentials for this agent's user on a new transaction.
     */
    public SipExchange authenticate(SipExchange challenged, String password) throws Exception {
        Response challenge = challenged.awaitFinal(TIMEOUT);
        gov.nist.javax.sip.clientauthutils.AccountManager accounts = (tx, realm) ->
                new gov.nist.javax.sip.clientauthutils.UserCredentials() {
                    @Override
                    public String getUserName() {
                        return user;
                    }

                    @Override
                    public String getPassword() {
                        return password;
                    }

                    @Override
                    public String getSipDomain() {
                        return realm;
                    }
                };
        ClientTransaction ct = stack.getAuthenticationHelper(accounts, headers)
                .handleChallenge(challenge, challenged.transaction(), provider, 5);
        SipExchange x = new SipExchange(ct.getRequest(), ct, this::errors);
        ct.setApplicationData(x);
        ct.sendRequest();
        return x;
    }

    /** As {@link #authenticate(SipExchange, String)} for a call's challenged INVITE: the call going on. */
    public Call authenticate(Call challenged, String password) throws Exception {
        return new Call(authenticate(challenged.invite(), password));
    }

    /** Sends an INVITE to {@code target} through {@code proxy}; a 2xx is acknowledged as it arrives. */
    public Call invite(SipURI target, InetSocketAddress proxy) throws Exception {
        return new Call(send(newRequest(Request.INVITE, target, proxy)));
    }

    /** Places a call and waits until it is answered and acknowledged; fails on any other outcome. */
    public Call call(SipURI target, InetSocketAddress proxy) throws Exception {
        Call call = invite(target, proxy);
        call.awaitAnswered(TIMEOUT);
        return call;
    }

    // ---- server side -----------------------------------------------------------------------

    /** Scripts how requests of a method are answered from now on (INVITE defaults to 180 then 200, others to 200). */
    public void answer(String method, Answer answer) {
        answers.put(method, Objects.requireNonNull(answer, "answer"));
    }

    /** Every request received so far, in order, ACK and CANCEL included. */
    public synchronized List<Request> received() {
        return List.copyOf(received);
    }

    /** Received requests of one method. */
    public synchronized List<Request> received(String method) {
        return received.stream().filter(r -> r.getMethod().equals(method)).toList();
    }

    /** Waits for the first request of a method; fails when none arrives in time. */
    public Request awaitRequest(String method, Duration timeout) throws InterruptedException {
        return awaitRequests(method, 1, timeout).get(0);
    }

    /** Waits until {@code count} requests of a method have arrived and returns them; fails when they do not in time. */
    public synchronized List<Request> awaitRequests(String method, int count, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<Request> matching = received.stream().filter(r -> r.getMethod().equals(method)).toList();
            if (matching.size() >= count) {
                return matching;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(user + " received " + matching.size() + " " + method + " of " + count
                        + " within " + timeout + "; received " + methods(received)
                        + (errors.isEmpty() ? "" : ", errors " + errors));
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /**
     * The dialog of the INVITE this agent last answered with 2xx, or null when it has answered none
     * within {@link #TIMEOUT}: the caller may see the 2xx before this agent's listener has filed its
     * dialog, so this waits for it.
     */
    public synchronized Dialog answeredDialog() {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (answeredDialog == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return answeredDialog;
    }

    /** Hangs up the call this agent last answered: BYE within its dialog, along its route set. */
    public SipExchange hangUpAnswered() throws SipException {
        Dialog d = answeredDialog();
        if (d == null) {
            throw new IllegalStateException(user + " has answered no call");
        }
        return sendInDialog(d, Request.BYE);
    }

    /** Sends a request of {@code method} within a dialog (RFC 3261 §12.2.1.1). */
    public SipExchange sendInDialog(Dialog d, String method) throws SipException {
        Request r = d.createRequest(method);
        ClientTransaction ct = provider.getNewClientTransaction(r);
        SipExchange x = new SipExchange(r, ct, this::errors);
        ct.setApplicationData(x);
        d.sendRequest(ct);
        return x;
    }

    private synchronized void answered(Dialog d) {
        answeredDialog = d;
        notifyAll();
    }

    /** Problems the agent met on its own (failed answers, I/O errors), for failure messages. */
    public synchronized List<String> errors() {
        return List.copyOf(errors);
    }

    private static List<String> methods(List<Request> requests) {
        return requests.stream().map(Request::getMethod).toList();
    }

    private synchronized void record(Request r) {
        received.add(r);
        notifyAll();
    }

    private synchronized void error(String what) {
        errors.add(what);
    }

    @Override
    public void close() {
        stop(stack);
    }

    /**
     * Stops a stack whose timer is a {@link QuickStopTimer}: its sockets closed, without JAIN-SIP's
     * 1 s sleep after the timer, which takes the timer's interruption.
     */
    private static void stop(SipStackImpl stack) {
        stack.stop();
        if (Thread.interrupted()) {
            throw new IllegalStateException("the agent's stack stopped with this thread interrupted: JAIN-SIP no"
                    + " longer sleeps after stopping its timer, or the test was interrupted meanwhile");
        }
    }

    /**
     * JAIN-SIP's own timer, which interrupts the thread that stops it. The stack stops it last and
     * then sleeps 1 s ({@code SIPTransactionStack.stopStack}, which catches the interruption) for its
     * socket threads to notice the stop; an agent's sockets are closed by then and its threads end
     * as they find them closed, so a test does not wait that second for every agent it closes.
     * Threading: as JAIN-SIP's timer.
     */
    public static final class QuickStopTimer extends DefaultSipTimer {

        /** JAIN-SIP creates the timer by its class name. */
        public QuickStopTimer() {
        }

        @Override
        public void stop() {
            super.stop();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "ua " + aor() + " on " + transport.configName() + ":" + HOST + ":" + port();
    }

    // ---- scripted answers, exchanges, calls ------------------------------------------------

    /**
     * How the agent answers one method: provisional statuses sent at once, then a final status, or
     * none ({@code finalStatus == 0}: the request stays pending until it is cancelled).
     * Threading: immutable.
     */
    public record Answer(List<Integer> provisionals, int finalStatus) {

        public Answer {
            provisionals = List.copyOf(provisionals);
        }

        /** 180 Ringing, then 200 OK without a body. */
        public static Answer ringThenOk() {
            return new Answer(List.of(Response.RINGING), Response.OK);
        }

        /** A final status at once. */
        public static Answer status(int finalStatus) {
            return new Answer(List.of(), finalStatus);
        }

        /** 180 Ringing and never a final response. */
        public static Answer ringForever() {
            return new Answer(List.of(Response.RINGING), 0);
        }
    }

    /**
     * One call placed by this agent: the INVITE exchange, then BYE or CANCEL.
     * Threading: one test thread.
     */
    public final class Call {

        private final SipExchange invite;

        private Call(SipExchange invite) {
            this.invite = invite;
        }

        /** The INVITE and its responses. */
        public SipExchange invite() {
            return invite;
        }

        /** Waits for a 2xx and its ACK; fails on any other final response. */
        public Response awaitAnswered(Duration timeout) throws InterruptedException {
            Response r = invite.awaitFinal(timeout);
            if (r.getStatusCode() / 100 != 2) {
                throw new AssertionError("call to " + invite.request().getRequestURI() + " answered "
                        + r.getStatusCode() + " " + r.getReasonPhrase() + "; got " + invite.statuses());
            }
            if (invite.ack() == null) {
                throw new AssertionError("2xx was not acknowledged: " + errors());
            }
            return r;
        }

        /** The ACK sent for the 2xx. */
        public Request ack() {
            return invite.ack();
        }

        /** Sends BYE within the dialog (along its route set) and returns the exchange. */
        public SipExchange bye() throws SipException {
            Dialog d = invite.dialog();
            if (d == null) {
                throw new IllegalStateException("no dialog: the call was not answered");
            }
            return sendInDialog(d, Request.BYE);
        }

        /** Sends BYE and waits for its final response. */
        public Response hangUp() throws Exception {
            return bye().awaitFinal(TIMEOUT);
        }

        /** Sends CANCEL for the pending INVITE (RFC 3261 §9.1: after a provisional response). */
        public SipExchange cancel() throws SipException {
            return send(invite.transaction().createCancel());
        }
    }

    /** The JAIN-SIP listener: answers requests as scripted and files responses with their exchanges. */
    private final class Listener implements SipListener {

        @Override
        public void processRequest(RequestEvent event) {
            Request request = event.getRequest();
            record(request);
            String method = request.getMethod();
            if (Request.ACK.equals(method)) {
                return;
            }
            try {
                ServerTransaction st = event.getServerTransaction() != null ? event.getServerTransaction()
                        : provider.getNewServerTransaction(request);
                if (Request.CANCEL.equals(method)) {
                    cancel(request, st);
                    return;
                }
                Answer answer = answers.getOrDefault(method, Answer.status(Response.OK));
                String tag = Long.toHexString(System.nanoTime());
                st.setApplicationData(tag);
                for (int status : answer.provisionals()) {
                    st.sendResponse(response(status, request, tag));
                }
                if (answer.finalStatus() != 0) {
                    st.sendResponse(response(answer.finalStatus(), request, tag));
                    if (Request.INVITE.equals(method) && answer.finalStatus() / 100 == 2) {
                        answered(st.getDialog());
                    }
                }
            } catch (Exception e) {
                error("answering " + method + ": " + e);
            }
        }

        /** RFC 3261 §9.2: 200 for the CANCEL, then 487 for the INVITE when it is still pending. */
        private void cancel(Request cancel, ServerTransaction st) throws Exception {
            SIPServerTransaction invite = st instanceof SIPServerTransaction s ? s.getCanceledInviteTransaction() : null;
            if (invite == null) {
                st.sendResponse(messages.createResponse(Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, cancel));
                return;
            }
            String tag = (String) invite.getApplicationData();
            st.sendResponse(response(Response.OK, cancel, tag));
            if (invite.getLastResponseStatusCode() < 200) {
                invite.sendResponse(response(Response.REQUEST_TERMINATED, invite.getOriginalRequest(), tag));
            }
        }

        private Response response(int status, Request request, String tag) throws ParseException {
            Response r = messages.createResponse(status, request);
            ToHeader to = (ToHeader) r.getHeader(ToHeader.NAME);
            if (to.getTag() == null && tag != null && status > 100) {
                to.setTag(tag);
            }
            if (Request.INVITE.equals(request.getMethod()) && status < 300) {
                r.addHeader(headers.createContactHeader(addresses.createAddress(contactUri())));
            }
            return r;
        }

        @Override
        public void processResponse(ResponseEvent event) {
            Response response = event.getResponse();
            ClientTransaction ct = event.getClientTransaction();
            if (ct == null || !(ct.getApplicationData() instanceof SipExchange x)) {
                // a 2xx retransmission after its transaction ended: the stack repeats the ACK itself
                return;
            }
            Request ack = null;
            CSeqHeader cseq = (CSeqHeader) response.getHeader(CSeqHeader.NAME);
            if (response.getStatusCode() / 100 == 2 && Request.INVITE.equals(cseq.getMethod())
                    && event.getDialog() != null) {
                try {
                    ack = event.getDialog().createAck(cseq.getSeqNumber());
                    event.getDialog().sendAck(ack);
                } catch (SipException | InvalidArgumentException e) {
                    error("ACK for " + response.getStatusCode() + ": " + e);
                    ack = null;
                }
            }
            x.add(response, event.getDialog(), ack);
        }

        @Override
        public void processTimeout(TimeoutEvent event) {
            if (!event.isServerTransaction()
                    && event.getClientTransaction().getApplicationData() instanceof SipExchange x) {
                x.timeout();
            }
        }

        @Override
        public void processIOException(IOExceptionEvent event) {
            error("I/O error towards " + event.getHost() + ":" + event.getPort() + "/" + event.getTransport());
        }

        @Override
        public void processTransactionTerminated(TransactionTerminatedEvent event) {
            // exchanges keep what they received; nothing to release
        }

        @Override
        public void processDialogTerminated(DialogTerminatedEvent event) {
            // dialogs end with their BYE; nothing to release
        }
    }
}
