package org.sipcrypt.server.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The calling side of INVITE/100/180/200/ACK/BYE/200 over one persistent TLS connection to the
 * proxy, for {@link TlsCallLoad}: calls start on a fixed schedule whatever the answers (open loop),
 * each with its own Call-ID, From tag and branch. On a 200 to the INVITE the ACK and then the BYE
 * go to the 200's Contact through the route set the proxy's Record-Route built (RFC 3261 §12.1.2,
 * §13.2.2.4); the call succeeds on a 200 to the BYE, and fails on any other final response or when
 * it has not ended after the call timeout. A non-2xx final response to the INVITE is acknowledged
 * hop by hop (§17.1.1.3). Requests the proxy sends in are answered 200 (ACK is not) and counted.
 * The call response time is from sending the INVITE to reading its 200.
 * Threading: the calling thread starts calls and sweeps timeouts, thread {@code tls-load-reader}
 * handles what arrives; a call's stage is guarded by the call, writes by one lock.
 */
final class OpenLoopCaller {

    /** How long an ended call is remembered, to acknowledge retransmitted 200s (64 × T1). */
    private static final long REMEMBER_NANOS = TimeUnit.SECONDS.toNanos(32);
    private static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private enum Stage { INVITING, BYE_SENT, DONE }

    /** One call's state. */
    private static final class Call {
        final String callId;
        final boolean measured;
        final long invitedNanos;
        Stage stage = Stage.INVITING;
        boolean byeSent;
        long doneNanos;

        Call(String callId, boolean measured, long invitedNanos) {
            this.callId = callId;
            this.measured = measured;
            this.invitedNanos = invitedNanos;
        }
    }

    private final TlsConnector connector;
    private final TlsCallLoad.Options options;
    private final long timeoutNanos;
    private final String run = Long.toString(System.currentTimeMillis() % 100_000_000, 36);
    private final Map<String, Call> calls = new ConcurrentHashMap<>();
    private final Histogram responseMicros = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    private final AtomicInteger ok = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger warmupOk = new AtomicInteger();
    private final AtomicInteger warmupFailed = new AtomicInteger();
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> requestsIn = new ConcurrentHashMap<>();
    private final AtomicLong lastMeasuredEnd = new AtomicLong();
    private final AtomicLong branches = new AtomicLong();
    private final Object writeLock = new Object();
    private CountDownLatch measuredLeft;
    private TlsConnector.Link link;
    private String local;
    private final String transport;
    private volatile String lost;
    private volatile boolean closing;

    OpenLoopCaller(TlsConnector connector, TlsCallLoad.Options options) {
        this.connector = connector;
        this.options = options;
        this.timeoutNanos = (long) (options.callTimeoutSeconds() * 1e9);
        this.transport = TlsConnector.sipTransport(options.client());
    }

    /** Runs the warm-up and the measured calls, prints the result; returns the exit code. */
    int run() throws InterruptedException, IOException {
        try {
            link = connector.open();
        } catch (IOException e) {
            System.err.println("TlsCallLoad: cannot connect to " + options.target() + ": " + e);
            System.out.println("RESULT mode=calls error=connect calls_ok=0 calls_failed=" + options.calls());
            return 1;
        }
        // the reader blocks until data comes; the connection's end or close() wakes it
        link.socket.setSoTimeout(0);
        local = link.localHostPort();
        Thread reader = new Thread(this::readLoop, "tls-load-reader");
        reader.setDaemon(true);
        reader.start();

        int warmupCalls = (int) Math.round(options.warmupSeconds() * options.rate());
        int total = warmupCalls + options.calls();
        measuredLeft = new CountDownLatch(options.calls());
        double intervalNanos = 1e9 / options.rate();
        long start = System.nanoTime();
        long windowStart = 0;
        long lastSend = start;
        long maxLagNanos = 0;
        long nextSweep = start + SWEEP_NANOS;
        int sent = 0;
        for (int i = 0; i < total && lost == null; i++) {
            long due = start + (long) (i * intervalNanos);
            long now;
            while ((now = System.nanoTime()) < due) {
                if (now >= nextSweep) {
                    sweep(now);
                    nextSweep = now + SWEEP_NANOS;
                }
                LockSupport.parkNanos(Math.min(due - now, SWEEP_NANOS));
            }
            if (i == warmupCalls) {
                TlsCallLoad.window("start");
                windowStart = System.nanoTime();
            }
            maxLagNanos = i >= warmupCalls ? Math.max(maxLagNanos, now - due) : maxLagNanos;
            lastSend = invite(i, i >= warmupCalls);
            sent++;
            if (lastSend >= nextSweep) {
                sweep(lastSend);
                nextSweep = lastSend + SWEEP_NANOS;
            }
        }
        long deadline = lastSend + timeoutNanos + SWEEP_NANOS;
        while (measuredLeft.getCount() > 0 && lost == null && System.nanoTime() < deadline) {
            measuredLeft.await(SWEEP_NANOS, TimeUnit.NANOSECONDS);
            sweep(System.nanoTime());
        }
        if (lost != null) {
            for (Call c : calls.values()) {
                finish(c, "connection", System.nanoTime());
            }
        }
        sweep(Math.max(System.nanoTime(), deadline));
        // calls never started (the connection was lost first) count as failed too
        for (int i = Math.max(sent, warmupCalls); i < total; i++) {
            failed.incrementAndGet();
            failures.computeIfAbsent("not_started", k -> new LongAdder()).increment();
        }
        if (windowStart == 0) {
            TlsCallLoad.window("start");
            windowStart = System.nanoTime();
        }
        TlsCallLoad.window("end");
        long windowEnd = Math.max(lastMeasuredEnd.get(), windowStart + 1);
        closing = true;
        try {
            link.close();
        } catch (IOException e) {
            System.err.println("TlsCallLoad: closing the connection: " + e);
        }
        reader.join(2000);
        report(windowStart, windowEnd, lastSend, maxLagNanos);
        return 0;
    }

    private void report(long windowStart, long windowEnd, long lastSend, long maxLagNanos) {
        double elapsed = (windowEnd - windowStart) / 1e9;
        double sending = (lastSend - windowStart) / 1e9;
        int n = options.calls();
        double offered = n > 1 && sending > 0 ? (n - 1) / sending : 0;
        String p;
        synchronized (responseMicros) {
            p = TlsCallLoad.percentiles(responseMicros);
        }
        System.out.printf(Locale.ROOT, "RESULT mode=calls %s calls_ok=%d calls_failed=%d warmup_ok=%d warmup_failed=%d"
                        + " elapsed_s=%.3f offered_cps=%.1f achieved_cps=%.1f %s max_lag_ms=%.1f handshakes=1 resumed=%d"
                        + " requests_in=%s failures=%s lost=%s%n",
                TlsCallLoad.describe(options, link.suite), ok.get(), failed.get(), warmupOk.get(), warmupFailed.get(),
                elapsed, offered, elapsed > 0 ? ok.get() / elapsed : 0, p, maxLagNanos / 1e6, link.resumed ? 1 : 0,
                TlsCallLoad.counts(requestsIn), TlsCallLoad.counts(failures), lost == null ? "no" : "yes");
        System.err.printf(Locale.ROOT, "%s over %s (%s): %d calls at %.0f/s after %d warm-up calls (%d failed):"
                        + " %d ok, %d failed in %.2f s (%.1f calls/s); INVITE->200 %s%s%n",
                TlsCallLoad.hostPort(options.target()), link.suite, TlsCallLoad.describe(options, link.suite), n, options.rate(),
                warmupOk.get() + warmupFailed.get(), warmupFailed.get(), ok.get(), failed.get(), elapsed,
                elapsed > 0 ? ok.get() / elapsed : 0, p,
                lost == null ? "" : "; connection lost: " + lost);
        if (!failures.isEmpty()) {
            System.err.println("  failures: " + TlsCallLoad.counts(failures));
        }
        if (!requestsIn.isEmpty()) {
            System.err.println("  requests sent in by the proxy (answered 200 unless ACK): " + TlsCallLoad.counts(requestsIn));
        }
    }

    /** Sends call number {@code i}'s INVITE; returns when it was sent. */
    private long invite(int i, boolean measured) {
        String callId = "tlsload-" + run + "-" + i;
        String sdp = "v=0\r\no=tlsload " + i + " 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
                + "m=audio " + (20000 + 2 * (i % 10000)) + " RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n";
        String host = local.substring(0, local.lastIndexOf(':'));
        String invite = "INVITE " + options.uri() + " SIP/2.0\r\n"
                + "Via: SIP/2.0/" + transport + " " + local + ";branch=" + branch() + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:tlsload@" + host + ">;tag=f" + run + "-" + i + "\r\n"
                + "To: <" + options.uri() + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 INVITE\r\n"
                + "Contact: <sip:tlsload@" + local + ";transport=" + transport.toLowerCase(java.util.Locale.ROOT) + ">\r\n"
                + "Content-Type: application/sdp\r\n"
                + "Content-Length: " + sdp.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + sdp;
        long now = System.nanoTime();
        Call c = new Call(callId, measured, now);
        calls.put(callId, c);
        if (!send(invite)) {
            finish(c, "send", System.nanoTime());
        }
        return now;
    }

    private String branch() {
        return "z9hG4bK-" + run + "-" + branches.incrementAndGet();
    }

    /** Writes one message; false when the connection failed. */
    private boolean send(String message) {
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        if (options.trace()) {
            System.err.print("--> sent\n" + message);
        }
        try {
            synchronized (writeLock) {
                link.out.write(bytes);
                link.out.flush();
            }
            return true;
        } catch (IOException e) {
            if (lost == null && !closing) {
                lost = "write: " + e;
            }
            return false;
        }
    }

    private void readLoop() {
        SipStreamReader reader = new SipStreamReader(link.in);
        try {
            SipStreamReader.Message m;
            while ((m = reader.next()) != null) {
                handle(m);
            }
            if (!closing) {
                lost = "the server closed the connection";
            }
        } catch (IOException | RuntimeException e) {
            if (!closing) {
                lost = "read: " + e;
            }
        }
    }

    private void handle(SipStreamReader.Message m) {
        long now = System.nanoTime();
        if (options.trace()) {
            StringBuilder text = new StringBuilder("<-- read\n").append(m.startLine()).append("\r\n");
            m.headers().forEach(h -> text.append(h[0]).append(": ").append(h[1]).append("\r\n"));
            System.err.print(text.append("\r\n").append(new String(m.body(), StandardCharsets.UTF_8)));
        }
        if (!m.isResponse()) {
            requestsIn.computeIfAbsent(m.method(), k -> new LongAdder()).increment();
            if (!"ACK".equals(m.method())) {
                send(answer200(m));
            }
            return;
        }
        String callId = m.header("call-id");
        Call c = callId == null ? null : calls.get(callId);
        int status = m.status();
        String method = m.method();
        if ("INVITE".equals(method)) {
            if (status < 200) {
                return;
            }
            if (status >= 300) {
                send(ackNon2xx(m));
                if (c != null) {
                    finish(c, "invite_" + status, now);
                }
                return;
            }
            boolean bye = false;
            if (c != null) {
                synchronized (c) {
                    if (c.stage == Stage.INVITING) {
                        c.stage = Stage.BYE_SENT;
                        if (c.measured) {
                            synchronized (responseMicros) {
                                responseMicros.recordValue(Math.max(0, (now - c.invitedNanos) / 1000));
                            }
                        }
                    }
                    // a 200 that arrives after the call timed out still gets its BYE, to end the callee's dialog
                    bye = !c.byeSent;
                    c.byeSent = true;
                }
            }
            send(inDialog(m, "ACK", 1));
            if (bye) {
                send(inDialog(m, "BYE", 2));
            }
        } else if ("BYE".equals(method) && status >= 200 && c != null) {
            finish(c, status < 300 ? null : "bye_" + status, now);
        }
    }

    /** Ends a call once: {@code reason} null for success. */
    private void finish(Call c, String reason, long now) {
        synchronized (c) {
            if (c.stage == Stage.DONE) {
                return;
            }
            c.stage = Stage.DONE;
            c.doneNanos = now;
        }
        if (!c.measured) {
            (reason == null ? warmupOk : warmupFailed).incrementAndGet();
            return;
        }
        if (reason == null) {
            ok.incrementAndGet();
        } else {
            failed.incrementAndGet();
            failures.computeIfAbsent(reason, k -> new LongAdder()).increment();
        }
        lastMeasuredEnd.accumulateAndGet(now, Math::max);
        measuredLeft.countDown();
    }

    /** Fails calls past their timeout; forgets calls ended long enough ago. */
    private void sweep(long now) {
        for (Call c : calls.values()) {
            Stage stage;
            long done;
            synchronized (c) {
                stage = c.stage;
                done = c.doneNanos;
            }
            if (stage != Stage.DONE && now - c.invitedNanos > timeoutNanos) {
                finish(c, stage == Stage.INVITING ? "timeout_invite" : "timeout_bye", now);
            } else if (stage == Stage.DONE && now - done > REMEMBER_NANOS) {
                calls.remove(c.callId);
            }
        }
    }

    /**
     * ACK or BYE inside the dialog a 2xx to the INVITE set up (RFC 3261 §12.1.2, §12.2.1.1):
     * Request-URI the 2xx's Contact, Route the Record-Route in reverse order, From and To (with
     * the callee's tag) and Call-ID as in the 2xx; a new branch.
     */
    private String inDialog(SipStreamReader.Message ok200, String method, int cseq) {
        String contact = ok200.values("contact", true).stream().findFirst().orElse("<" + options.uri() + ">");
        String target = uriOf(contact);
        List<String> recordRoute = ok200.values("record-route", true);
        StringBuilder m = new StringBuilder();
        m.append(method).append(' ').append(target).append(" SIP/2.0\r\n")
                .append("Via: SIP/2.0/").append(transport).append(' ').append(local).append(";branch=").append(branch()).append(";rport\r\n")
                .append("Max-Forwards: 70\r\n");
        for (int i = recordRoute.size() - 1; i >= 0; i--) {
            m.append("Route: ").append(recordRoute.get(i)).append("\r\n");
        }
        m.append("From: ").append(ok200.header("from")).append("\r\n")
                .append("To: ").append(ok200.header("to")).append("\r\n")
                .append("Call-ID: ").append(ok200.header("call-id")).append("\r\n")
                .append("CSeq: ").append(cseq).append(' ').append(method).append("\r\n")
                .append("Content-Length: 0\r\n\r\n");
        return m.toString();
    }

    /** ACK for a non-2xx final response: part of the INVITE transaction, its branch (RFC 3261 §17.1.1.3). */
    private String ackNon2xx(SipStreamReader.Message r) {
        String cseq = r.header("cseq");
        String number = cseq == null ? "1" : cseq.trim().split("\\s+")[0];
        return "ACK " + options.uri() + " SIP/2.0\r\n"
                + "Via: " + r.values("via", true).get(0) + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: " + r.header("from") + "\r\n"
                + "To: " + r.header("to") + "\r\n"
                + "Call-ID: " + r.header("call-id") + "\r\n"
                + "CSeq: " + number + " ACK\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    /** 200 OK to a request the proxy sent in: its Via, From, To (tagged), Call-ID and CSeq. */
    private String answer200(SipStreamReader.Message req) {
        StringBuilder m = new StringBuilder("SIP/2.0 200 OK\r\n");
        for (String via : req.lines("via")) {
            m.append(via).append("\r\n");
        }
        String to = req.header("to");
        if (to != null && !to.toLowerCase(Locale.ROOT).contains(";tag=")) {
            to = to + ";tag=a" + run;
        }
        m.append("From: ").append(req.header("from")).append("\r\n")
                .append("To: ").append(to).append("\r\n")
                .append("Call-ID: ").append(req.header("call-id")).append("\r\n")
                .append("CSeq: ").append(req.header("cseq")).append("\r\n")
                .append("Content-Length: 0\r\n\r\n");
        return m.toString();
    }

    /** The URI inside a name-addr ({@code "x" <sip:...>;p}) or an addr-spec without its header parameters. */
    static String uriOf(String value) {
        int lt = value.indexOf('<');
        if (lt >= 0) {
            int gt = value.indexOf('>', lt);
            return value.substring(lt + 1, gt < 0 ? value.length() : gt);
        }
        int semi = value.indexOf(';');
        return (semi < 0 ? value : value.substring(0, semi)).trim();
    }
}
