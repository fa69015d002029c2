package org.sipcrypt.server.sip.registrar;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.GregorianCalendar;
import java.util.List;
import java.util.ListIterator;
import java.util.Locale;
import java.util.Objects;
import java.util.TimeZone;
import javax.sip.ServerTransaction;
import javax.sip.address.Address;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ContactHeader;
import javax.sip.header.ExpiresHeader;
import javax.sip.header.Header;
import javax.sip.header.RequireHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.SupportedHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.sipcrypt.server.location.Binding;
import org.sipcrypt.server.location.ContactChange;
import org.sipcrypt.server.location.LocationService;
import org.sipcrypt.server.location.RegisterChange;
import org.sipcrypt.server.location.RegisterOutcome;
import org.sipcrypt.server.sip.RegistrarFunction;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.StackInternals;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registrar (RFC 3261 §10.3): validates a REGISTER, turns its contacts into a
 * {@link RegisterChange} for the location service, and answers 200 with the address-of-record's
 * current bindings, 423 when a contact asks for too short a lifetime, 400 for a misused wildcard,
 * a To URI that is not {@code sip:}/{@code sips:}, a q value outside 0 to 1 or a value longer than
 * the location database holds ({@link #MAX_CALL_ID_CHARS}, {@link #MAX_CONTACT_CHARS},
 * {@link #MAX_AOR_CHARS}), 403 for more contacts than {@code registrar.maxContacts}, 420 for
 * unsupported extensions, 500 for an out-of-order request and 503 when the database fails or
 * holds {@code registrar.maxBindings} already. Each binding keeps the flow its REGISTER came over
 * (RFC 5626 §3.3), whether a NAT was detected ({@link NatTest}, as Kamailio's
 * {@code fix_nated_register} keeps the source for a NATed phone; counted in
 * {@code sip.registrations.nat}), and the contact's RFC 5626 instance and reg-id.
 * <p>Path (RFC 3327 §5.3): a REGISTER whose previous hop {@link PathTrust} trusts has its Path header
 * values stored with every binding it writes, first hop first, and copied into the 200; the
 * bindings are then reached through that Path (the proxy pushes it as the Route set) and the
 * registrar records no NAT for them (the edge proxy handles the phone's NAT). As in Kamailio's
 * registrar by default ({@code path_mode} strict), a Path from a trusted hop in a REGISTER without
 * {@code Supported: path} is answered 420 with {@code Unsupported: path}; more than
 * {@value PathVector#MAX_ENTRIES} entries or {@value PathVector#MAX_CHARS} characters, an entry that
 * is not a SIP URI, or a first entry without {@code lr}, 400. From anyone else the Path is ignored,
 * neither stored nor echoed. Each case is counted in {@code sip.registrations.path{result}}. An
 * RFC 5626 REGISTER (a reg-id) relayed by an edge that put {@code ob} in the first Path entry gets
 * {@code Require: outbound} without {@code Flow-Timer} (RFC 5626 §6).
 * Threading: thread-safe; runs on SIP worker lanes and never waits for the database.
 */
public final class Registrar implements RegistrarFunction {

    private static final Logger log = LoggerFactory.getLogger(Registrar.class);

    private final SipContext ctx;
    private final LocationService location;
    /** Longest Call-ID stored (the width of {@code bindings.call_id}); longer ones get 400. */
    public static final int MAX_CALL_ID_CHARS = 1024;

    /** Longest Contact URI stored (the width of {@code bindings.contact_key}); longer ones get 400. */
    public static final int MAX_CONTACT_CHARS = 1024;

    /** Longest address-of-record stored (the width of {@code aors.aor}); longer ones get 400. */
    public static final int MAX_AOR_CHARS = 512;

    private final ExpiresPolicy policy;
    private final int maxContacts;
    private final long flowTimerSeconds;
    private final RegisteredFlows flows;
    private final PathTrust pathTrust;

    /**
     * @param maxContacts    most contacts per address-of-record ({@code registrar.maxContacts}); the
     *                       location service enforces the same bound on what is stored
     * @param tcpIdleTimeout how long a connection may stay without traffic ({@code tcp.idleTimeout}):
     *                       an outbound phone is told to send keep-alives at half of it ({@code Flow-Timer})
     * @param flows          told each address-of-record's live bindings after every REGISTER applied
     * @param pathTrust      whose Path headers are stored
     */
    public Registrar(SipContext ctx, LocationService location, ExpiresPolicy policy, int maxContacts,
                     Duration tcpIdleTimeout, RegisteredFlows flows, PathTrust pathTrust) {
        this.flows = Objects.requireNonNull(flows, "flows");
        this.pathTrust = Objects.requireNonNull(pathTrust, "pathTrust");
        this.flowTimerSeconds = Math.max(1, tcpIdleTimeout.toSeconds() / 2);
        this.ctx = Objects.requireNonNull(ctx, "ctx");
        this.location = Objects.requireNonNull(location, "location");
        this.policy = Objects.requireNonNull(policy, "policy");
        if (maxContacts < 1) {
            throw new IllegalArgumentException("maxContacts must be at least 1: " + maxContacts);
        }
        this.maxContacts = maxContacts;
    }

    /** Handles one REGISTER addressed to this server's domain. */
    @Override
    public void register(Request request, ServerTransaction st) {
        String toHost = toHost(request);
        if (toHost != null && !ctx.local().isLocalDomain(toHost)) {
            // RFC 3261 §10.3 step 5: the address-of-record must be in a domain this registrar serves
            ctx.respond(st, request, Response.NOT_FOUND, "Not Our Domain");
            return;
        }
        Flow flow = SipContext.flowOf(request);
        InetSocketAddress source = source(request);
        Decision d = decide(request, policy, maxContacts, ctx.clock().instant(), received(request), ctx.headers(),
                source, flow != null ? flow.transport() : viaTransport(request), flow);
        if (d.status != 0) {
            if (d.status == Response.BAD_REQUEST) {
                ctx.counters().rejected(d.tag != null ? d.tag : "bad_register");
            } else if (d.status == Response.FORBIDDEN) {
                ctx.counters().rejected("too_many_contacts");
            }
            ctx.respond(st, request, d.status, d.reason, d.extra.toArray(new Header[0]));
            return;
        }
        String path = null;
        if (request.getHeader(PathVector.HEADER) != null) {
            if (!pathTrust.trusts(SipContext.sourceAddress(request), flow)) {
                // RFC 3327 §6.1: only an authenticated previous hop may put itself in the phone's way
                ctx.counters().pathRegistration("ignored_untrusted");
            } else {
                Decision p = path(request, ctx.headers());
                if (p.status != 0) {
                    ctx.counters().pathRegistration(p.status == Response.BAD_EXTENSION ? "refused_unsupported"
                            : "refused_" + p.tag);
                    if (p.status == Response.BAD_REQUEST) {
                        ctx.counters().rejected(p.tag);
                    }
                    ctx.respond(st, request, p.status, p.reason, p.extra.toArray(new Header[0]));
                    return;
                }
                path = p.path;
                d.change = d.change.withPath(path, withoutNat(d.change.contacts()));
            }
        }
        String storedPath = path;
        if (d.change.contacts().stream().anyMatch(c -> c.nat() && !c.expires().isZero())) {
            ctx.counters().natRegistration(flow != null ? flow.transport().configName() : "unknown");
        }
        String callId = ((CallIdHeader) request.getHeader(CallIdHeader.NAME)).getCallId();
        location.register(d.change).whenCompleteAsync((outcome, failure) -> {
            if (failure != null) {
                ctx.counters().dbError();
                log.debug("REGISTER {}: location service failed: {}", d.change.aor(), failure.toString());
                ctx.respond(st, request, Response.SERVICE_UNAVAILABLE, "Location Service Unavailable", ctx.retryAfter());
            } else if (outcome instanceof RegisterOutcome.TooManyContacts t) {
                ctx.counters().rejected("too_many_contacts");
                ctx.respond(st, request, Response.FORBIDDEN, tooManyContacts(t.limit()));
            } else if (outcome instanceof RegisterOutcome.Full f) {
                ctx.counters().rejected("registrar_full");
                ctx.respond(st, request, Response.SERVICE_UNAVAILABLE,
                        "Registrar Full (limit " + f.limit() + " bindings)", ctx.retryAfter());
            } else if (outcome instanceof RegisterOutcome.OutOfOrder o) {
                ctx.respond(st, request, Response.SERVER_INTERNAL_ERROR,
                        "Out of order: CSeq not above " + o.storedCseq());
            } else {
                List<Binding> bindings = ((RegisterOutcome.Applied) outcome).bindings();
                flows.registered(d.change.aor(), bindings);
                if (storedPath != null) {
                    ctx.counters().pathRegistration("stored");
                }
                boolean direct = storedPath == null && outboundRequested(request, d.change);
                boolean viaEdge = storedPath != null && outboundThroughEdge(storedPath, d.change, ctx.headers());
                answer(st, request, bindings, d.change.now(), direct || viaEdge, direct, storedPath);
            }
        }, ctx.lane(callId));
    }

    private static String toHost(Request request) {
        URI uri = ((ToHeader) request.getHeader(ToHeader.NAME)).getAddress().getURI();
        return uri instanceof SipURI sip ? sip.getHost() : null;
    }


    /**
     * RFC 5626 §6: a REGISTER whose Contact has a reg-id and whose Supported lists {@code outbound}
     * gets {@code Require: outbound} and a {@code Flow-Timer} (which start the phone's keep-alives,
     * §4.4) when this registrar is its first hop: it has one Via. One relayed by an edge proxy whose
     * Path is stored is answered by {@link #outboundThroughEdge}; through any other proxy, without outbound.
     */
    static boolean outboundRequested(Request request, RegisterChange change) {
        return supported(request, "outbound") && viaCount(request) == 1
                && change.contacts().stream().anyMatch(c -> c.regId() > 0);
    }

    /**
     * RFC 5626 §6: a REGISTER whose Contact has a reg-id, relayed by an edge proxy that put {@code ob}
     * in the first Path entry (Kamailio's path module with its outbound module does), gets
     * {@code Require: outbound}; the keep-alive interval is the edge's business, so no {@code Flow-Timer}.
     */
    static boolean outboundThroughEdge(String path, RegisterChange change, javax.sip.header.HeaderFactory headers) {
        if (change.contacts().stream().noneMatch(c -> c.regId() > 0)) {
            return false;
        }
        List<String> entries = PathVector.split(path);
        try {
            return !entries.isEmpty() && ((RouteHeader) headers.createHeader(RouteHeader.NAME, entries.get(0)))
                    .getAddress().getURI() instanceof SipURI sip && hasParameterOb(sip.getParameterNames());
        } catch (java.text.ParseException e) {
            return false;   // stored by this registrar after the same parse: does not happen
        }
    }

    /** Whether a URI's parameters name {@code ob} (RFC 5626 §5.1), with or without a value. */
    private static boolean hasParameterOb(java.util.Iterator<?> names) {
        while (names.hasNext()) {
            if ("ob".equalsIgnoreCase((String) names.next())) {
                return true;
            }
        }
        return false;
    }

    /** How many Via entries {@code request} carries. */
    public static int viaCount(Request request) {
        int n = 0;
        for (ListIterator<?> it = request.getHeaders(ViaHeader.NAME); it != null && it.hasNext(); it.next()) {
            n++;
        }
        return n;
    }

    /**
     * RFC 3327 §5.3: the Path of a REGISTER from a trusted hop, checked; the decision carries its
     * stored text, or the error answer (400 with the counter tag, or 420).
     */
    static Decision path(Request request, javax.sip.header.HeaderFactory headers) {
        List<String> entries = PathVector.entries(request);
        String text = PathVector.join(entries);
        if (entries.isEmpty()) {
            return Decision.badRequest("bad_path", "Empty Path header");
        }
        if (entries.size() > PathVector.MAX_ENTRIES || text.length() > PathVector.MAX_CHARS) {
            return Decision.badRequest("too_long", "Path longer than " + PathVector.MAX_ENTRIES + " entries or "
                    + PathVector.MAX_CHARS + " characters");
        }
        for (int i = 0; i < entries.size(); i++) {
            RouteHeader route;
            try {
                route = (RouteHeader) headers.createHeader(RouteHeader.NAME, entries.get(i));
            } catch (java.text.ParseException | ClassCastException e) {
                return Decision.badRequest("bad_path", "Bad Path header");
            }
            if (!(route.getAddress().getURI() instanceof SipURI sip)) {
                return Decision.badRequest("bad_path", "Path entry is not a sip or sips URI");
            }
            // the first hop must route loosely: its URI becomes the next hop, not a Request-URI (RFC 3261 §16.12)
            if (i == 0 && !sip.hasLrParam()) {
                return Decision.badRequest("bad_path", "First Path entry has no lr parameter");
            }
        }
        if (!supported(request, "path")) {
            // RFC 3327 §5.3, as Kamailio's registrar answers by default (path_mode strict)
            Decision d = Decision.error(Response.BAD_EXTENSION, "Path Not Supported By The User Agent");
            try {
                d.extra.add(headers.createUnsupportedHeader("path"));
            } catch (java.text.ParseException e) {
                throw new IllegalStateException("Unsupported: path", e);
            }
            return d;
        }
        Decision d = new Decision();
        d.path = text;
        return d;
    }

    /** Whether {@code request} lists {@code tag} in a Supported header. */
    public static boolean supported(Request request, String tag) {
        ListIterator<?> it = request.getHeaders(SupportedHeader.NAME);
        while (it != null && it.hasNext()) {
            String listed = ((SupportedHeader) it.next()).getOptionTag();
            if (listed != null && tag.equalsIgnoreCase(listed.trim())) {
                return true;
            }
        }
        return false;
    }

    /** The contacts with no NAT noted: behind an edge proxy, the NAT test sees the edge, not the phone. */
    private static List<ContactChange> withoutNat(List<ContactChange> contacts) {
        List<ContactChange> out = new ArrayList<>(contacts.size());
        for (ContactChange c : contacts) {
            out.add(new ContactChange(c.contactKey(), c.contact(), c.expires(), c.q(), false, c.instance(), c.regId()));
        }
        return out;
    }

    /**
     * @param outbound  whether to answer {@code Require: outbound} (RFC 5626 §6)
     * @param flowTimer whether to add {@code Flow-Timer} too (this server is the phone's edge proxy)
     * @param path      the Path stored with the bindings, copied into the 200 (RFC 3327 §5.3); null for none
     */
    private void answer(ServerTransaction st, Request request, List<Binding> bindings, Instant now, boolean outbound,
                        boolean flowTimer, String path) {
        try {
            Response ok = ctx.createResponse(Response.OK, request);
            if (path != null) {
                for (String entry : PathVector.split(path)) {
                    ok.addHeader(ctx.headers().createHeader(PathVector.HEADER, entry));
                }
            }
            if (outbound) {
                ok.addHeader(ctx.headers().createRequireHeader("outbound"));
            }
            if (flowTimer) {
                ok.addHeader(ctx.headers().createHeader("Flow-Timer", Long.toString(flowTimerSeconds)));
            }
            for (Binding b : bindings) {
                Address a = ctx.addresses().createAddress(b.contact());
                ContactHeader c = ctx.headers().createContactHeader(a);
                c.setExpires((int) Math.min(Integer.MAX_VALUE, b.secondsLeft(now)));
                // A q outside 0-1 stored before the registrar refused them is left out, not answered 500.
                if (b.q() >= 0 && b.q() <= 1) {
                    c.setQValue(b.q());
                }
                ok.addHeader(c);
            }
            Calendar date = new GregorianCalendar(TimeZone.getTimeZone("GMT"), Locale.ROOT);
            date.setTimeInMillis(now.toEpochMilli());
            ok.addHeader(ctx.headers().createDateHeader(date));
            ctx.answer(st, ok);
        } catch (java.text.ParseException | javax.sip.InvalidArgumentException e) {
            ctx.counters().error("register_answer");
            log.warn("cannot build REGISTER answer: {}", e.toString());
            ctx.respond(st, request, Response.SERVER_INTERNAL_ERROR);
        }
    }

    /** The address and port {@code request}'s packets came from, or null when unknown. */
    public static InetSocketAddress source(Request request) {
        var addr = StackInternals.sourceAddress(request);
        int port = StackInternals.sourcePort(request);
        return addr == null || port <= 0 ? null : new InetSocketAddress(addr, port);
    }

    private static Transport viaTransport(Request request) {
        ViaHeader via = (ViaHeader) request.getHeader(ViaHeader.NAME);
        try {
            return via == null ? Transport.UDP : Transport.parse(via.getTransport());
        } catch (IllegalArgumentException e) {
            return Transport.UDP;
        }
    }

    private static String received(Request request) {
        ViaHeader via = (ViaHeader) request.getHeader(ViaHeader.NAME);
        String transport = via != null ? via.getTransport() : "udp";
        var addr = StackInternals.sourceAddress(request);
        int port = StackInternals.sourcePort(request);
        return transport.toLowerCase(Locale.ROOT) + ":" + (addr == null ? "?" : addr.getHostAddress()) + ":" + port;
    }

    /** The registrar's verdict before touching the database: an error answer, or a change to apply. */
    static final class Decision {
        int status;
        String reason;
        /** The counter tag of a 400 ({@code sip.requests.rejected{reason}}). */
        String tag;
        final List<Header> extra = new ArrayList<>();
        RegisterChange change;
        /** The Path text to store ({@link #path}). */
        String path;

        static Decision error(int status, String reason) {
            Decision d = new Decision();
            d.status = status;
            d.reason = reason;
            return d;
        }

        static Decision badRequest(String tag, String reason) {
            Decision d = error(Response.BAD_REQUEST, reason);
            d.tag = tag;
            return d;
        }
    }

    /** The reason phrase of the 403 for too many contacts: it names the limit. */
    static String tooManyContacts(int limit) {
        return "Too Many Contacts (limit " + limit + " per address-of-record)";
    }

    /** Applies the rules of RFC 3261 §10.3 steps 2, 5-7 to a REGISTER whose source is not known. */
    static Decision decide(Request request, ExpiresPolicy policy, int maxContacts, Instant now, String received,
                           javax.sip.header.HeaderFactory headers) {
        return decide(request, policy, maxContacts, now, received, headers, null, Transport.UDP, null);
    }

    /**
     * Applies the rules of RFC 3261 §10.3 steps 2, 5-7 to a REGISTER, and notes with each contact
     * whether it shows a NAT ({@link NatTest}) and its RFC 5626 instance and reg-id. Pure: no I/O.
     *
     * @param source where the REGISTER came from, or null when unknown (no NAT is detected then)
     * @param over   the transport it came over
     * @param flow   the flow it came over, stored with its bindings; null when the transport records none
     */
    static Decision decide(Request request, ExpiresPolicy policy, int maxContacts, Instant now, String received,
                           javax.sip.header.HeaderFactory headers, InetSocketAddress source, Transport over,
                           Flow flow) {
        // §10.3 step 2: we support no extension but path
        ListIterator<?> require = request.getHeaders(RequireHeader.NAME);
        if (require != null && require.hasNext()) {
            Decision d = Decision.error(Response.BAD_EXTENSION, null);
            while (require.hasNext()) {
                RequireHeader r = (RequireHeader) require.next();
                if ("path".equalsIgnoreCase(r.getOptionTag())) {
                    continue;   // RFC 3327: the one extension this registrar supports
                }
                try {
                    d.extra.add(headers.createUnsupportedHeader(r.getOptionTag()));
                } catch (java.text.ParseException e) {
                    return Decision.badRequest("bad_header", "Bad Require header");
                }
            }
            if (!d.extra.isEmpty()) {
                return d;
            }
        }
        // §10.3 step 5: the address-of-record
        URI toUri = ((ToHeader) request.getHeader(ToHeader.NAME)).getAddress().getURI();
        if (!(toUri instanceof SipURI)) {
            // An address-of-record is a SIP or SIPS URI (RFC 3261 §10.2); another scheme in To is a
            // malformed REGISTER, not an unknown user (RFC 4475 §3.1.2.15 asks for a 400 or 416).
            return Decision.badRequest("bad_to", "To URI scheme " + toUri.getScheme() + " is not sip or sips");
        }
        String aor = aor(toUri);
        if (aor == null) {
            return Decision.error(Response.NOT_FOUND, "Address-of-record must be a sip URI with a user");
        }
        if (aor.length() > MAX_AOR_CHARS) {
            return Decision.badRequest("too_long", "Address-of-record longer than " + MAX_AOR_CHARS + " characters");
        }
        String callId = ((CallIdHeader) request.getHeader(CallIdHeader.NAME)).getCallId();
        if (callId.length() > MAX_CALL_ID_CHARS) {
            return Decision.badRequest("too_long", "Call-ID longer than " + MAX_CALL_ID_CHARS + " characters");
        }
        long cseq = ((CSeqHeader) request.getHeader(CSeqHeader.NAME)).getSeqNumber();
        ExpiresHeader expiresHeader = (ExpiresHeader) request.getHeader(ExpiresHeader.NAME);
        long headerExpires = expiresHeader == null ? -1 : expiresHeader.getExpires();

        List<ContactHeader> contacts = new ArrayList<>();
        ListIterator<?> it = request.getHeaders(ContactHeader.NAME);
        while (it != null && it.hasNext()) {
            contacts.add((ContactHeader) it.next());
        }
        // §10.3 step 6: the wildcard
        boolean wildcard = contacts.stream().anyMatch(ContactHeader::isWildCard);
        if (wildcard) {
            if (contacts.size() != 1 || headerExpires != 0) {
                return Decision.badRequest("bad_wildcard", "Wildcard Contact needs Expires: 0 and no other contact");
            }
            Decision d = new Decision();
            d.change = new RegisterChange(aor, callId, cseq, true, List.of(), received, now, flowText(flow));
            return d;
        }
        // Bounded state: more contacts than an AOR may hold are refused before the database is asked.
        if (contacts.size() > maxContacts) {
            return Decision.error(Response.FORBIDDEN, tooManyContacts(maxContacts));
        }
        // §10.3 step 7: lifetimes
        List<ContactChange> changes = new ArrayList<>(contacts.size());
        for (ContactHeader c : contacts) {
            float q = c.getQValue();
            // RFC 3261 §20.10, §25.1: qvalue is a number from 0 to 1 (-1 means the parameter is absent)
            if (q != -1 && (q < 0 || q > 1 || Float.isNaN(q))) {
                return Decision.badRequest("bad_q", "Contact q value " + c.getParameter("q") + " not between 0 and 1");
            }
            String uriText = c.getAddress().getURI().toString();
            if (uriText.length() > MAX_CONTACT_CHARS) {
                return Decision.badRequest("too_long", "Contact URI longer than " + MAX_CONTACT_CHARS + " characters");
            }
            long requested = c.getExpires() >= 0 ? c.getExpires() : headerExpires;
            ExpiresPolicy.Grant grant = policy.grant(requested);
            if (grant.tooBrief()) {
                Decision d = Decision.error(Response.INTERVAL_TOO_BRIEF, null);
                try {
                    d.extra.add(headers.createMinExpiresHeader((int) grant.seconds()));
                } catch (javax.sip.InvalidArgumentException e) {
                    throw new IllegalStateException("Min-Expires " + grant.seconds(), e);
                }
                return d;
            }
            URI uri = c.getAddress().getURI();
            String instance = c.getParameter(INSTANCE);
            if (instance != null && instance.length() > MAX_INSTANCE_CHARS) {
                return Decision.badRequest("too_long", "+sip.instance longer than " + MAX_INSTANCE_CHARS + " characters");
            }
            int regId = regId(c.getParameter(REG_ID));
            if (regId < 0) {
                return Decision.badRequest("bad_reg_id", "reg-id " + c.getParameter(REG_ID) + " is not 1 to 2147483647");
            }
            changes.add(new ContactChange(contactKey(uri), uri.toString(), Duration.ofSeconds(grant.seconds()),
                    q < 0 ? -1 : q, NatTest.behindNat(request, uri, source, over),
                    instance == null ? null : unquoted(instance), instance == null ? 0 : regId));
        }
        Decision d = new Decision();
        d.change = new RegisterChange(aor, callId, cseq, false, changes, received, now, flowText(flow));
        return d;
    }

    /** The Contact parameter naming the user agent instance (RFC 5626 §4.1). */
    static final String INSTANCE = "+sip.instance";
    /** The Contact parameter naming one of an instance's flows (RFC 5626 §4.2). */
    static final String REG_ID = "reg-id";
    /** Longest {@code +sip.instance} stored (the width of {@code bindings.instance}); longer ones get 400. */
    public static final int MAX_INSTANCE_CHARS = 256;

    private static String flowText(Flow flow) {
        return flow == null ? null : flow.text();
    }

    /** A reg-id (RFC 5626 §4.2: 1 to 2^31-1), 0 when absent, -1 when it is not one. */
    static int regId(String value) {
        if (value == null) {
            return 0;
        }
        if (value.isEmpty() || value.length() > 10 || !value.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            return -1;
        }
        long v = Long.parseLong(value);
        return v < 1 || v > Integer.MAX_VALUE ? -1 : (int) v;
    }

    /** A {@code +sip.instance} value without its quotes (RFC 3840 §9: a quoted string). */
    private static String unquoted(String v) {
        return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
    }

    /** The canonical address-of-record {@code sip:user@host} of a To URI, or {@code null} when it has none. */
    public static String aor(URI uri) {
        if (!(uri instanceof SipURI sip) || sip.getUser() == null || sip.getUser().isEmpty()) {
            return null;
        }
        String host = sip.getHost().toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return "sip:" + sip.getUser() + "@" + host;
    }

    /** A contact URI in the form used to compare contacts (RFC 3261 §19.1.4, simplified). */
    public static String contactKey(URI uri) {
        if (!(uri instanceof SipURI sip)) {
            return uri.toString();
        }
        StringBuilder sb = new StringBuilder(64);
        sb.append(sip.isSecure() ? "sips:" : "sip:");
        if (sip.getUser() != null) {
            sb.append(sip.getUser()).append('@');
        }
        sb.append(sip.getHost().toLowerCase(Locale.ROOT));
        if (sip.getPort() > 0) {
            sb.append(':').append(sip.getPort());
        }
        String transport = sip.getTransportParam();
        if (transport != null) {
            sb.append(";transport=").append(transport.toLowerCase(Locale.ROOT));
        }
        return sb.toString();
    }
}
