package org.sipcrypt.lab.loadgen;

import io.netty.channel.EventLoop;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The UAC role: operations start on an open-loop schedule (operation n is due at n / rate seconds,
 * whatever became of earlier ones, so a slow target cannot slow the arrivals down and hide its
 * latency), each with a fresh Call-ID, tags and branches, and runs its {@link Workload}: a call
 * (INVITE/100/180/200/ACK/(hold)/BYE/200), a registration, its refresh or removal, an INVITE
 * answered 404 or 302, or an OPTIONS to the target itself; digest challenges are answered when the
 * run has users ({@link UacFlow} has the flows and the RFC 3261 timers). The response time runs from the moment the operation was due (so
 * it includes a per-call connection's TCP connect and TLS handshake, a challenge round trip, and any
 * lag of the generator) to its first final success response. In-dialog requests follow the route set
 * (§12.2.1.1) on UDP; on TCP and TLS they use the call's connection, which goes to the same next hop
 * in every topology the lab builds. With a start time the schedule waits for it, so several generator
 * processes begin together.
 * Threads: over UDP {@code lab-uac-arrivals} keeps the schedule and starts each operation itself;
 * over TCP and TLS an event loop of the generator's does (the persistent connection's, so the first
 * request is written from its own loop), unless a start would block: {@code lab-uac-N} (16, queue of
 * 10000, an operation refused by a full queue fails as {@code generator_overload}) start those, which
 * wait for a missing or lost persistent connection to open (a per-call connection is opened
 * asynchronously and the operation begins in its completion), {@code lab-uac-timer} (a timer wheel)
 * runs retransmissions, holds and timeouts, the generator's event loops ({@code lab-uac-io-N}, not
 * shared with the UAS) carry TCP and TLS connections, their handshakes and the responses read on
 * them, {@code lab-uac-udp} reads UDP, and the caller of {@link #run} samples every interval. Every
 * thread the generator starts is named {@value #THREADS}{@code -…}, so its CPU time can be told from
 * the UAS's in one process.
 * Threading: one {@link #run} per instance.
 */
public final class Uac {

    private static final Logger log = LoggerFactory.getLogger(Uac.class);

    /** How the names of the generator's threads begin. */
    public static final String THREADS = "lab-uac";
    private static final int WORKERS = 16;
    private static final int WORK_QUEUE = 10_000;
    /**
     * The tick of the timer wheel that runs retransmissions and timeouts: nearly every call timeout
     * is cancelled before it is due, and a wheel cancels it for nothing, where a scheduler's thread
     * woke up for each one removed at the head of its queue; 10 ms is well inside RFC 3261's T1 (500 ms).
     */
    private static final long TIMER_TICK_MILLIS = 10;

    private final UacOptions o;
    private final LegCounters counters = new LegCounters();
    private final UacTally tally = new UacTally(counters);
    private final Map<String, UacCall> calls = new ConcurrentHashMap<>();
    private final String runTag = Long.toString(System.nanoTime() & 0xFFFFFFFFFFL, 36);
    private final AtomicInteger inFlight = new AtomicInteger();
    private LegConnector connector;
    private UdpEndpoint udp;
    private volatile StreamConnection persistent;
    private HashedWheelTimer timer;
    private ThreadPoolExecutor workers;
    private UacFlow flow;
    private long startNanos;
    private long warmupEndNanos;
    private volatile boolean stopArrivals;
    /** Set once every operation due before the arrivals' end has been offered. */
    private volatile boolean arrivalsDone;

    /** A UAC for one run. */
    public Uac(UacOptions options) {
        this.o = options;
    }

    /** The counters of the run (bytes, handshakes, retransmissions). */
    public LegCounters counters() {
        return counters;
    }

    /**
     * Runs: waits for the start time if there is one, then warm-up plus duration of arrivals, then
     * waits for operations in flight (at most twice the call timeout plus the hold); stops early when
     * failures pass the threshold.
     *
     * @param onInterval receives each sample, on the calling thread
     * @throws IOException the transport cannot be set up (TLS files, the UDP socket)
     */
    public RunSummary run(Consumer<Interval> onInterval) throws IOException, InterruptedException {
        connector = new LegConnector(o.transport(), o.tls(), counters, o.callTimeout(), LabEventLoops.uac(),
                o.oneWayDelay(), true);
        timer = new HashedWheelTimer(NamedThreads.named(THREADS + "-timer"), TIMER_TICK_MILLIS, TimeUnit.MILLISECONDS);
        flow = new UacFlow(this, o, timer);
        workers = NamedThreads.numbered(THREADS).boundedPool(WORKERS, WORK_QUEUE);
        Thread arrivals = null;
        LoopArrivals loopArrivals = null;
        String stoppedEarly = null;
        try {
            if (o.transport() == Transport.UDP) {
                udp = new UdpEndpoint(new InetSocketAddress(o.local(), 0), counters, this::onUdp, THREADS + "-udp",
                        o.oneWayDelay());
            } else if (o.connection() == ConnectionPattern.PERSISTENT) {
                try {
                    persistent = connector.connectNow(o.target(), listener());
                } catch (IOException e) {
                    // as when it closes mid-run: each call tries again and fails as "connect", so a
                    // server refusing the connection for a moment fails a window, not the comparison
                    log.warn("{}: the persistent connection to {} failed ({}); each call connects again",
                            THREADS, o.target(), e.getMessage());
                }
            }
            awaitStart();
            startNanos = System.nanoTime();
            warmupEndNanos = startNanos + o.warmup().toNanos();
            long arrivalsEnd = warmupEndNanos + o.duration().toNanos();
            long hardEnd = arrivalsEnd + o.callTimeout().multipliedBy(2).plus(o.hold()).toNanos();
            EventLoop loop = arrivalsLoop();
            if (loop != null) {
                loopArrivals = new LoopArrivals(loop, arrivalsEnd);
                loop.execute(loopArrivals);
            } else {
                arrivals = NamedThreads.named(THREADS + "-arrivals").start(() -> arrive(arrivalsEnd));
            }
            long intervalNanos = o.interval().toNanos();
            long next = startNanos + intervalNanos;
            tally.begin(startNanos, warmupEndNanos);
            while (true) {
                long now = System.nanoTime();
                if (next > now) {
                    TimeUnit.NANOSECONDS.sleep(next - now);
                }
                now = System.nanoTime();
                next += intervalNanos;
                onInterval.accept(tally.sample(now));
                stoppedEarly = tally.failuresAbove(o.maxFailedPct());
                if (stoppedEarly != null) {
                    drain(Math.min(now + o.callTimeout().toNanos(), hardEnd));
                    break;
                }
                // a schedule running late (a busy machine) still offers what was due before the end
                if (now >= arrivalsEnd && (arrivalsDone && inFlight.get() == 0 || now >= hardEnd)) {
                    break;
                }
            }
        } finally {
            stopArrivals = true;
            if (arrivals != null) {
                arrivals.join(1000);
            }
            if (loopArrivals != null) {
                loopArrivals.stop();
            }
            for (Runnable never : workers.shutdownNow()) {
                // calls still queued when the run ended: due, never started; after an early stop
                // because of failures that is the stop, not the generator
                fail(((CallStart) never).call, stoppedEarly != null ? "stopped" : "generator_overload");
            }
            timer.stop();
            for (UacCall c : calls.values()) {
                fail(c, "timeout");
            }
            if (persistent != null) {
                persistent.close();
            }
            if (udp != null) {
                udp.close();
            }
        }
        return tally.summary(description(), o, stoppedEarly);
    }

    /** Sleeps until the start time, when there is one and it has not passed. */
    private void awaitStart() throws InterruptedException {
        if (o.startAt() == null) {
            return;
        }
        long waitMillis = Duration.between(Instant.now(), o.startAt()).toMillis();
        if (waitMillis > 0) {
            log.debug("run waits {} ms for its start at {}", waitMillis, o.startAt());
            Thread.sleep(waitMillis);
        }
    }

    private String description() {
        String s = (o.workload() == Workload.CALL ? "" : o.workload().configName() + ": ") + o.transport().configName()
                + " to " + o.target().getAddress().getHostAddress() + ":" + o.target().getPort();
        if (o.transport() != Transport.UDP) {
            s += " " + o.connection().configName();
        }
        if (o.transport().secure()) {
            s += " " + connector.tlsEngine() + " " + String.join(",", o.tls().ciphers())
                    + " reuse " + (o.tls().sessionReuse() ? "on" : "off");
        }
        if (!o.users().isEmpty()) {
            s += ", digest auth as " + o.users().size() + " users of " + o.domain();
        }
        return s + String.format(Locale.ROOT, o.workload() == Workload.CALL ? ", %.1f cps" : ", %.1f/s", o.rate());
    }

    /**
     * After an early stop: no new calls, and the calls under way get until {@code deadline} to end
     * (their answers, ACKs and BYEs go through) before the run closes its connections. Abandoned at
     * once, their INVITEs would still be forwarded and the callee's 2xx retransmitted towards a
     * closed connection: a backlog the next run on the same server would inherit.
     */
    private void drain(long deadline) throws InterruptedException {
        stopArrivals = true;
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /** When operation {@code n} is due: start + n / rate. */
    private long dueNanos(long n) {
        return startNanos + (long) (n * (1e9 / o.rate()));
    }

    /**
     * The event loop that keeps the schedule for stream transports: the persistent connection's, so
     * that each first request is written from its own loop (one wake-up per operation, where a thread
     * of its own handing each write to the loop took two), or one of the generator's loops for
     * per-call connections, which open without blocking. Null for UDP, whose sends may block, and
     * while the persistent connection is missing: {@code lab-uac-arrivals} keeps the schedule then.
     */
    private EventLoop arrivalsLoop() {
        if (o.transport() == Transport.UDP) {
            return null;
        }
        if (o.connection() == ConnectionPattern.PER_CALL) {
            return LabEventLoops.uac().next();
        }
        StreamConnection c = persistent;
        return c == null || c.isClosed() ? null : c.eventLoop();
    }

    /** The open-loop schedule on a thread of its own: parks until each operation is due. */
    private void arrive(long arrivalsEnd) {
        for (long i = 0; !stopArrivals; i++) {
            long due = dueNanos(i);
            if (due >= arrivalsEnd) {
                arrivalsDone = true;
                return;
            }
            long wait = due - System.nanoTime();
            while (wait > 0 && !stopArrivals) {
                LockSupport.parkNanos(wait);
                wait = due - System.nanoTime();
            }
            offer(i, due, -wait, true);
        }
    }

    /**
     * The open-loop schedule on an event loop: each run offers every operation due by then and
     * schedules the next run for the next one due. Lateness is measured as on the thread, from when
     * each operation was due to when it was offered.
     * Threading: runs on its event loop only; {@link #stop} from any thread.
     */
    private final class LoopArrivals implements Runnable {
        private final EventLoop loop;
        private final long end;
        private long next;
        private volatile Future<?> pending;

        LoopArrivals(EventLoop loop, long end) {
            this.loop = loop;
            this.end = end;
        }

        @Override
        public void run() {
            while (!stopArrivals) {
                long due = dueNanos(next);
                if (due >= end) {
                    arrivalsDone = true;
                    return;
                }
                long now = System.nanoTime();
                if (due > now) {
                    pending = loop.schedule(this, due - now, TimeUnit.NANOSECONDS);
                    return;
                }
                offer(next++, due, now - due, false);
            }
        }

        /** Offers nothing more; returns once a run under way has ended (at most 1 s). */
        void stop() {
            stopArrivals = true;
            Future<?> p = pending;
            if (p != null) {
                p.cancel(false);
            }
            // queued behind a run under way, if any
            loop.submit(() -> { }).awaitUninterruptibly(1000);
        }
    }

    /**
     * Operation {@code n}, due at {@code due} and offered {@code lagNanos} late: started here unless
     * that could block, else handed to a worker. {@code mayBlock}: whether this thread may wait for
     * the persistent connection to open again (never on an event loop).
     */
    private void offer(long n, long due, long lagNanos, boolean mayBlock) {
        boolean measured = due >= warmupEndNanos;
        UacCall call = flow.newCall(n, due, measured, runTag);
        tally.offered(measured, lagNanos);
        inFlight.incrementAndGet();
        if (!startBlocks()) {
            // no hand-off: a worker's wake-up per operation cost the generator more CPU than the start itself
            start(call, mayBlock);
        } else {
            handOver(call);
        }
    }

    /** Queues the operation for a worker, which may wait for the persistent connection. */
    private void handOver(UacCall call) {
        try {
            workers.execute(new CallStart(call));
        } catch (RejectedExecutionException e) {
            fail(call, stopArrivals ? "timeout" : "generator_overload");
        }
    }

    /**
     * Whether starting an operation now would block: only when the persistent connection is
     * missing or lost and must be opened again. UDP sends at once, and a per-call connection
     * opens asynchronously.
     */
    private boolean startBlocks() {
        if (o.transport() == Transport.UDP || o.connection() == ConnectionPattern.PER_CALL) {
            return false;
        }
        StreamConnection c = persistent;
        return c == null || c.isClosed();
    }

    /** An operation waiting for a worker (named so those still queued at the end can be failed). */
    private final class CallStart implements Runnable {
        final UacCall call;

        CallStart(UacCall call) {
            this.call = call;
        }

        @Override
        public void run() {
            start(call, true);
        }
    }

    private StreamConnection.Listener listener() {
        return new StreamConnection.Listener() {
            @Override
            public void message(StreamConnection from, SipMessage m) {
                onMessage(m);
            }

            @Override
            public void closed(StreamConnection c, String reason) {
                for (UacCall call : calls.values()) {
                    if (call.channel == c) {
                        fail(call, "transport");
                    }
                }
            }
        };
    }

    /** The Via of the operation's requests, without branch: its connection's local address, or the UDP socket's. */
    String via(UacCall call) {
        InetSocketAddress local = localAddress(call);
        String t = call.channel != null ? call.channel.viaTransport() : "UDP";
        return "SIP/2.0/" + t + " " + UacOptions.hostOf(local) + ":" + local.getPort();
    }

    /** The local address the operation sends from. */
    InetSocketAddress localAddress(UacCall call) {
        return call.channel != null ? call.channel.localAddress() : udp.localAddress();
    }

    /** Whether the transport is UDP, where requests are retransmitted. */
    boolean unreliable() {
        return udp != null;
    }

    /**
     * A per-call connection is opened without blocking and the operation begins in the connect's
     * completion, on the connection's event loop; otherwise it begins here. A persistent connection
     * that is gone is opened again here when {@code mayBlock}, else the operation goes to a worker.
     */
    private void start(UacCall call, boolean mayBlock) {
        if (o.transport() == Transport.UDP) {
            begin(call, null);
            return;
        }
        if (o.connection() == ConnectionPattern.PER_CALL) {
            // in the table while it connects, so the run's end fails it if the connect never settles
            calls.put(call.callId, call);
            connector.connect(o.target(), listener()).whenComplete((c, e) -> {
                if (e != null) {
                    log.debug("call {} could not connect: {}", call.callId, e.toString());
                    fail(call, "connect");
                } else {
                    begin(call, c);
                }
            });
            return;
        }
        StreamConnection c = persistent;
        if (!mayBlock && (c == null || c.isClosed())) {
            handOver(call);
            return;
        }
        try {
            c = persistentConnection();
        } catch (IOException e) {
            log.debug("call {} could not connect: {}", call.callId, e.toString());
            fail(call, "connect");
            return;
        }
        begin(call, c);
    }

    /** Sends the operation's first request on {@code channel} (null on UDP), unless it ended meanwhile. */
    private void begin(UacCall call, StreamConnection channel) {
        synchronized (call) {
            if (call.state == UacCall.State.DONE) {
                if (channel != null && channel != persistent) {
                    channel.close();
                }
                return;
            }
            call.channel = channel;
            calls.put(call.callId, call);
            tally.started(call.measured);
            flow.begin(call);
        }
    }

    private synchronized StreamConnection persistentConnection() throws IOException {
        if (persistent == null || persistent.isClosed()) {
            persistent = connector.connectNow(o.target(), listener());
        }
        return persistent;
    }

    /** Sends one message of the operation; a failure to send fails it as {@code transport}. */
    boolean send(UacCall call, byte[] message, InetSocketAddress to) {
        try {
            if (call.channel != null) {
                call.channel.send(message);
            } else {
                udp.send(message, to);
            }
            return true;
        } catch (IOException e) {
            log.debug("call {} send failed: {}", call.callId, e.toString());
            fail(call, "transport");
            return false;
        }
    }

    /** Counts a retransmission sent. */
    void retransmitted() {
        counters.retransmissions.increment();
    }

    /** Counts a digest challenge answered. */
    void challengeAnswered(UacCall call) {
        tally.challengeAnswered(call.measured);
    }

    /** Records the operation's response time, from when it was due to now, once. */
    void responseTime(UacCall call) {
        if (!call.timed) {
            call.timed = true;
            tally.responseTime((System.nanoTime() - call.dueNanos) / 1000, call.measured);
        }
    }

    private void onUdp(SipMessage m, InetSocketAddress from) {
        onMessage(m);
    }

    private void onMessage(SipMessage m) {
        UacCall call = calls.get(m.callId());
        if (call == null) {
            return;
        }
        synchronized (call) {
            if (call.state == UacCall.State.DONE) {
                return;
            }
            if (!m.isResponse()) {
                fail(call, "unexpected");
                return;
            }
            flow.onResponse(call, m);
        }
    }

    /** Ends the operation as completed. */
    void complete(UacCall call) {
        if (end(call)) {
            tally.completed(call.measured);
        }
    }

    /** Ends the operation as failed by {@code cause} (once; later calls do nothing). */
    void fail(UacCall call, String cause) {
        synchronized (call) {
            UacCall.State was = call.state;
            if (end(call)) {
                tally.failed(call.measured, cause);
                log.debug("call {} failed in {}: {}", call.callId, was, cause);
            }
        }
    }

    /** Ends a call once; closes its per-call connection. */
    private boolean end(UacCall call) {
        synchronized (call) {
            if (call.state == UacCall.State.DONE) {
                return false;
            }
            call.state = UacCall.State.DONE;
            UacFlow.cancelTimer(call);
            if (call.timeout != null) {
                call.timeout.cancel();
            }
            calls.remove(call.callId);
            inFlight.decrementAndGet();
            if (call.channel != null && call.channel != persistent) {
                call.channel.close();
            }
            return true;
        }
    }
}
