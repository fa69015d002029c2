package org.sipcrypt.server.sip;

import java.net.InetAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import javax.sip.DialogTerminatedEvent;
import javax.sip.IOExceptionEvent;
import javax.sip.RequestEvent;
import javax.sip.ResponseEvent;
import javax.sip.ServerTransaction;
import javax.sip.SipListener;
import javax.sip.TimeoutEvent;
import javax.sip.TransactionAlreadyExistsException;
import javax.sip.TransactionTerminatedEvent;
import javax.sip.TransactionUnavailableException;
import javax.sip.address.SipURI;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.sipcrypt.server.auth.AuthResult;
import org.sipcrypt.server.auth.DigestAuthenticator;
import org.sipcrypt.server.auth.DigestChallenge;
import org.sipcrypt.server.config.Mode;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JAIN-SIP listener: sends each request to the function that handles it. OPTIONS addressed
 * to the server itself are answered here; REGISTER for our domain goes to the registrar; the rest
 * to the proxy or, in redirect mode, the redirect server. While the server drains for shutdown,
 * new out-of-dialog requests get 503. With digest authentication on, the {@link AccessPolicy}
 * says which requests need credentials (RFC 3261 §22); those are checked asynchronously and
 * continue on their call's lane (at once when the check needed no lookup, as for the challenge of
 * a request without credentials), and an ACK for a 2xx without a signed route of ours is dropped;
 * each failed authentication is reported by source address, for the per-source bans. In proxy mode
 * a request a strict router sent on to us is first turned into its loose-routed form
 * ({@link StrictRouting}, RFC 3261 §16.4), which everything after reads.
 * Threading: thread-safe; called on SIP worker lanes (timeouts on the stack's timer thread);
 * never blocks.
 */
public final class SipDispatcher implements SipListener {

    private static final Logger log = LoggerFactory.getLogger(SipDispatcher.class);
    private static final RateLimitedLog rateLimited = new RateLimitedLog(log);
    /** The outcome of wrong credentials: a wrong password, an unknown or a disabled user ({@link DigestAuthenticator}). */
    private static final String FAILED = "failed";
    private static final String ALLOW = "INVITE, ACK, BYE, CANCEL, OPTIONS, REGISTER, INFO, UPDATE, PRACK, "
            + "SUBSCRIBE, NOTIFY, REFER, MESSAGE";

    private final SipContext ctx;
    private final Mode mode;
    private final RegistrarFunction registrar;
    private final ProxyFunction proxy;
    private final SipFunction redirect;
    private final DigestAuthenticator auth;
    private final AccessPolicy policy;
    private final Consumer<InetAddress> authFailed;

    /**
     * @param auth       digest authentication, or null when it is off
     * @param policy     which requests need credentials; null exactly when {@code auth} is
     * @param authFailed told the source address of each request whose credentials failed (wrong
     *                   password, unknown or disabled user), on the request's lane: the per-source bans
     */
    public SipDispatcher(SipContext ctx, Mode mode, RegistrarFunction registrar, ProxyFunction proxy, SipFunction redirect,
                         DigestAuthenticator auth, AccessPolicy policy, Consumer<InetAddress> authFailed) {
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        if ((auth == null) != (policy == null)) {
            throw new IllegalArgumentException("auth and policy go together: " + auth + ", " + policy);
        }
        this.auth = auth;
        this.policy = policy;
        this.mode = Objects.requireNonNull(mode, "mode");
        this.registrar = Objects.requireNonNull(registrar, "registrar");
        this.proxy = Objects.requireNonNull(proxy, "proxy");
        this.redirect = Objects.requireNonNull(redirect, "redirect");
        this.authFailed = Objects.requireNonNull(authFailed, "authFailed");
    }

    @Override
    public void processRequest(RequestEvent event) {
        Request received = event.getRequest();
        String method = received.getMethod();
        ctx.counters().requestReceived(method);
        // RFC 3261 §16.4: a strict router before us put our Record-Route URI in the Request-URI; the
        // proxy works on the request as a loose router would have sent it on (not on a REGISTER, never
        // sent within a dialog, nor on a CANCEL: the proxy cancels its branches with CANCELs of its own)
        Request request = mode == Mode.PROXY && !Request.REGISTER.equals(method) && !Request.CANCEL.equals(method)
                ? StrictRouting.loosened(received, ctx.local(), ctx.headers(), ctx.addresses()) : received;
        if (Request.ACK.equals(method)) {
            // an ACK for a non-2xx was absorbed by its server transaction: this one is for a 2xx
            if (mode != Mode.PROXY) {
                return;
            }
            if (policy != null && !policy.mayRelayAck(request)) {
                // RFC 3261 §22.1: never challenged, so without a dialog of ours it is not relayed
                ctx.counters().dropped("ack_outside_dialog");
                rateLimited.warn("ack_outside_dialog", "ACK from {} to {} dropped: no signed route of ours"
                        + " (counted in sip.requests.dropped{reason=ack_outside_dialog})",
                        SipContext.sourceAddress(request), request.getRequestURI());
                return;
            }
            proxy.onAck(request);
            return;
        }
        ServerTransaction st = serverTransaction(event);
        if (st == null) {
            return;
        }
        ctx.opened(st);
        if (Request.CANCEL.equals(method)) {
            if (mode == Mode.PROXY) {
                proxy.onCancel(request, st);
            } else {
                redirect.onCancel(request, st);
            }
            return;
        }
        if (ctx.draining() && !inDialog(request)) {
            ctx.respond(st, request, Response.SERVICE_UNAVAILABLE, "Shutting Down", ctx.retryAfter());
            return;
        }
        boolean toUs = ctx.local().isLocal(request.getRequestURI());
        boolean toRegistrar = Request.REGISTER.equals(method) && (toUs || isOurDomain(request));
        if (policy != null && policy.mustAuthenticate(request)) {
            String callId = ((CallIdHeader) request.getHeader(CallIdHeader.NAME)).getCallId();
            String client = clientAddress(request);
            CompletableFuture<AuthResult> checked = auth.authenticate(request, toRegistrar, client);
            if (checked.isDone() && ctx.onLane(callId)) {
                // settled without a lookup (no credentials: the challenge): answered now, on this very
                // lane, rather than behind the lane's queue, where the transaction would hold the parsed
                // request (and, once its 100 Trying had gone, keep it until Timer H) for the whole wait
                checked.whenComplete(
                        (result, failure) -> afterAuthentication(request, st, toRegistrar, client, result, failure));
            } else {
                checked.whenCompleteAsync(
                        (result, failure) -> afterAuthentication(request, st, toRegistrar, client, result, failure),
                        ctx.lane(callId));
            }
            return;
        }
        dispatch(request, st, toUs, toRegistrar, null);
    }

    /** Hands a request on; {@code identity} is the user it authenticated as, or null. */
    private void dispatch(Request request, ServerTransaction st, boolean toUs, boolean toRegistrar, String identity) {
        String method = request.getMethod();
        if (toRegistrar) {
            registrar.register(request, st);
        } else if (Request.OPTIONS.equals(method) && toUs && ((SipURI) request.getRequestURI()).getUser() == null) {
            answerOptions(request, st);
        } else if (toUs && ((SipURI) request.getRequestURI()).getUser() == null && request.getHeader("Route") == null) {
            if (Request.NOTIFY.equals(method)) {
                // RFC 6665 §4.1.3: a NOTIFY matching no subscription gets 481; this server subscribes to nothing
                ctx.respond(st, request, Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, "Subscription Does Not Exist");
            } else {
                ctx.respond(st, request, Response.NOT_FOUND, "No User In Request-URI");
            }
        } else if (mode == Mode.PROXY) {
            proxy.onRequest(request, st, identity);
        } else {
            redirect.onRequest(request, st);
        }
    }

    /** Answers a request whose credentials were checked, or hands it on. Runs on the call's lane. */
    private void afterAuthentication(Request request, ServerTransaction st, boolean toRegistrar, String client,
                                     AuthResult result, Throwable failure) {
        if (failure != null) {
            ctx.counters().error("auth");
            log.warn("digest authentication failed unexpectedly: {}", failure.toString());
            ctx.respond(st, request, Response.SERVER_INTERNAL_ERROR);
        } else if (result instanceof AuthResult.Accepted accepted) {
            if (!toRegistrar) {
                auth.consumeCredentials(request);
            }
            dispatch(request, st, ctx.local().isLocal(request.getRequestURI()), toRegistrar, accepted.username());
        } else if (result instanceof AuthResult.Challenge c) {
            if (c.why().equals(FAILED)) {
                failed(request);
            }
            try {
                ctx.respond(st, request, toRegistrar ? Response.UNAUTHORIZED : Response.PROXY_AUTHENTICATION_REQUIRED,
                        DigestChallenge.headers(ctx.headers(), auth, toRegistrar, client, c.stale()));
            } catch (java.text.ParseException e) {
                ctx.counters().error("auth_challenge");
                log.warn("cannot build a digest challenge: {}", e.toString());
                ctx.respond(st, request, Response.SERVER_INTERNAL_ERROR);
            }
        } else if (result instanceof AuthResult.Refused r) {
            if (r.why().equals(FAILED)) {
                failed(request);
            }
            ctx.respond(st, request, Response.FORBIDDEN, r.reason());
        } else if (result instanceof AuthResult.Malformed m) {
            ctx.counters().rejected("bad_authorization");
            ctx.respond(st, request, Response.BAD_REQUEST, m.reason());
        } else if (result instanceof AuthResult.Unavailable u) {
            ctx.counters().dbError();
            log.debug("{} {}: credential lookup failed: {}", request.getMethod(), request.getRequestURI(),
                    u.cause().toString());
            ctx.respond(st, request, Response.SERVICE_UNAVAILABLE, "Authentication Service Unavailable",
                    ctx.retryAfter());
        }
    }

    /** Reports a failed authentication (the outcome {@code failed}) of the request's source. */
    private void failed(Request request) {
        InetAddress source = SipContext.sourceAddress(request);
        if (source != null) {
            authFailed.accept(source);
        }
    }

    /** The IP address a request came from, as text. */
    private static String clientAddress(Request request) {
        var addr = SipContext.sourceAddress(request);
        return addr == null ? "" : addr.getHostAddress();
    }

    private boolean isOurDomain(Request request) {
        return request.getRequestURI() instanceof SipURI sip && ctx.local().isLocalDomain(sip.getHost())
                && (sip.getPort() <= 0 || ctx.local().isLocal(sip.getHost(), sip.getPort()));
    }

    private static boolean inDialog(Request request) {
        ToHeader to = (ToHeader) request.getHeader(ToHeader.NAME);
        return to != null && to.getTag() != null;
    }

    private void answerOptions(Request request, ServerTransaction st) {
        try {
            ctx.respond(st, request, Response.OK,
                    ctx.headers().createAllowHeader(ALLOW),
                    ctx.headers().createAcceptHeader("application", "sdp"),
                    ctx.headers().createSupportedHeader("path"));
        } catch (java.text.ParseException e) {
            ctx.respond(st, request, Response.OK);
        }
    }

    /** The event's server transaction, or a new one; null for a retransmission racing its original. */
    private ServerTransaction serverTransaction(RequestEvent event) {
        ServerTransaction st = event.getServerTransaction();
        if (st != null) {
            return st;
        }
        try {
            // the provider of the listening point the request came in on, whose socket answers it
            javax.sip.SipProvider provider = event.getSource() instanceof javax.sip.SipProvider p ? p : ctx.provider();
            return provider.getNewServerTransaction(event.getRequest());
        } catch (TransactionAlreadyExistsException e) {
            return null;
        } catch (TransactionUnavailableException e) {
            ctx.counters().error("no_server_transaction");
            log.debug("no server transaction for {}: {}", event.getRequest().getMethod(), e.getMessage());
            return null;
        }
    }

    @Override
    public void processResponse(ResponseEvent event) {
        if (mode == Mode.PROXY) {
            proxy.onResponse(event.getResponse(), event.getClientTransaction());
        }
    }

    @Override
    public void processTimeout(TimeoutEvent event) {
        if (!event.isServerTransaction() && mode == Mode.PROXY) {
            proxy.onTimeout(event.getClientTransaction());
        }
    }

    @Override
    public void processIOException(IOExceptionEvent event) {
        ctx.counters().error("io_exception");
        log.debug("I/O error towards {}:{}/{}", event.getHost(), event.getPort(), event.getTransport());
    }

    @Override
    public void processTransactionTerminated(TransactionTerminatedEvent event) {
        if (event.isServerTransaction()) {
            ctx.answered(event.getServerTransaction());
        }
    }

    @Override
    public void processDialogTerminated(DialogTerminatedEvent event) {
        // the proxy keeps no dialogs (AUTOMATIC_DIALOG_SUPPORT is off)
    }
}
