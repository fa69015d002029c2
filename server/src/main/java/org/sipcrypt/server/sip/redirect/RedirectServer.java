package org.sipcrypt.server.sip.redirect;

import java.text.ParseException;
import java.util.Objects;
import javax.sip.InvalidArgumentException;
import javax.sip.ServerTransaction;
import javax.sip.address.SipURI;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ContactHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.sipcrypt.server.location.Binding;
import org.sipcrypt.server.location.LocationService;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.StackInternals;
import org.sipcrypt.server.sip.SipFunction;
import org.sipcrypt.server.sip.registrar.Registrar;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The redirect server (RFC 3261 §8.3, §21.3.3): answers a request for a registered user with
 * 302 Moved Temporarily listing the user's live contacts, 480 when the user has none, 404 for an
 * unknown user. CANCEL of a pending INVITE gets 200 and the INVITE 487.
 * Threading: thread-safe; runs on SIP worker lanes, never waits for the database.
 */
public final class RedirectServer implements SipFunction {

    private static final Logger log = LoggerFactory.getLogger(RedirectServer.class);

    private final SipContext ctx;
    private final LocationService location;

    public RedirectServer(SipContext ctx, LocationService location) {
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.location = Objects.requireNonNull(location, "location");
    }

    /** Answers a request that is neither ACK nor CANCEL. */
    @Override
    public void onRequest(Request request, ServerTransaction st) {
        String aor = Registrar.aor(request.getRequestURI());
        if (!(request.getRequestURI() instanceof SipURI) || aor == null) {
            ctx.respond(st, request, Response.NOT_FOUND);
            return;
        }
        String callId = ((CallIdHeader) request.getHeader(CallIdHeader.NAME)).getCallId();
        location.lookup(aor, ctx.clock().instant()).whenCompleteAsync((result, failure) -> {
            if (failure != null) {
                ctx.counters().dbError();
                log.debug("{}: location lookup failed: {}", aor, failure.toString());
                ctx.respond(st, request, Response.SERVICE_UNAVAILABLE, "Location Service Unavailable", ctx.retryAfter());
            } else if (!result.known()) {
                ctx.respond(st, request, Response.NOT_FOUND);
            } else if (result.bindings().isEmpty()) {
                ctx.respond(st, request, Response.TEMPORARILY_UNAVAILABLE);
            } else {
                redirect(st, request, result.bindings());
            }
        }, ctx.lane(callId));
    }

    private void redirect(ServerTransaction st, Request request, java.util.List<Binding> bindings) {
        try {
            Response r = ctx.createResponse(Response.MOVED_TEMPORARILY, request);
            var now = ctx.clock().instant();
            for (Binding b : bindings) {
                ContactHeader c = ctx.headers().createContactHeader(ctx.addresses().createAddress(b.contact()));
                if (b.q() >= 0) {
                    c.setQValue(b.q());
                }
                c.setExpires((int) Math.min(Integer.MAX_VALUE, b.secondsLeft(now)));
                r.addHeader(c);
            }
            ctx.answer(st, r);
        } catch (ParseException | InvalidArgumentException e) {
            ctx.counters().error("redirect_answer");
            log.warn("cannot build 302: {}", e.toString());
            ctx.respond(st, request, Response.SERVER_INTERNAL_ERROR);
        }
    }

    /** CANCEL: 200 for the CANCEL, 487 for the INVITE when it is still unanswered. */
    @Override
    public void onCancel(Request cancel, ServerTransaction st) {
        ServerTransaction invite = ctx.answerCancel(cancel, st);
        if (invite != null && StackInternals.lastResponseStatus(invite) < 200) {
            ctx.respond(invite, StackInternals.originalRequest(invite), Response.REQUEST_TERMINATED);
        }
    }
}
