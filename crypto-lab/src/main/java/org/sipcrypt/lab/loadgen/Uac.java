package org.sipcrypt.lab.loadgen;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.sipcrypt.lab.metrics.CallTimer;
import org.sipcrypt.lab.metrics.CrtBuckets;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.ProcessCpu;
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
 * (INVITE/100/180/200/ACK/(hold)/BYE/200), a registration, its refresh or removal, or an INVITE
 * answered 404 or 302; digest challenges are answered when the run has users ({@link UacFlow} has the
 * flows and the RFC 3261 timers). The response time runs from the moment the operation was due (so
 * it includes a per-call connection's TCP connect and TLS handshake, a challenge round trip, and any
 * lag of the generator) to its first final success response. In-dialog requests follow the route set
 * (§12.2.1.1) on UDP; on TCP and TLS they use the call's connection, which goes to the same next hop
 * in every topology the lab builds. With a start time the schedule waits for it, so several generator
 * processes begin together.
 * Threads: {@code lab-uac-arrivals} keeps the schedule, {@code lab-uac-N} (16, queue of 10000,
 * an operation refused by a full queue fails as {@code generator_overload}) start operations (they
 * block only to reopen a lost persistent connection; a per-call connection is opened asynchronously
 * and the operation begins in its completion), {@code lab-uac-timer} runs retransmissions, holds and
 * timeouts, the lab's shared event loops ({@code lab-io-N}) carry TCP and TLS connections, their
 * handshakes and the responses read on them, and the caller of {@link #run} samples every interval.
 * Threading: one {@link #run} per instance.
 */
public final class Uac {

    private static final Logger log = LoggerFactory.getLogger(Uac.class);
    private static final int WORKERS = 16;
    private static final int WORK_QUEUE = 10_000;
    private static final double SATURATED_LAG_MS = 100;

    private final UacOptions o;
    private final LegCounters counters = new LegCounters();
    private final CallTimer crt = new CallTimer();
    private final Map<String, UacCall> calls = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> causes = new ConcurrentHashMap<>();
    private final String runTag = Long.toString(System.nanoTime() & 0xFFFFFFFFFFL, 36);
    private final LongAdder offered = new LongAdder();
    private final LongAdder started = new LongAdder();
    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder mOffered = new LongAdder();
    private final LongAdder mStarted = new LongAdder();
    private final LongAdder mCompleted = new LongAdder();
    private final LongAdder mFailed = new LongAdder();
    private final LongAdder mChallenges = new LongAdder();
    private final AtomicLong maxLagNanos = new AtomicLong();
    private final AtomicInteger inFlight = new AtomicInteger();
    private LegConnector connector;
    private UdpEndpoint udp;
    private volatile StreamConnection persistent;
    private ScheduledThreadPoolExecutor timer;
    private ThreadPoolExecutor workers;
    private UacFlow flow;
    private long startNanos;
    private long warmupEndNanos;
    private volatile boolean stopArrivals;

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
     * @throws IOException the transport cannot be set up (TLS files, the persistent connection)
     */
    public RunSummary run(Consumer<Interval> onInterval) throws IOException, InterruptedException {
        connector = new LegConnector(o.transport(), o.tls(), counters, o.callTimeout());
        timer = NamedThreads.named("lab-uac-timer").scheduler();
        flow = new UacFlow(this, o, timer);
        workers = NamedThreads.numbered("lab-uac").boundedPool(WORKERS, WORK_QUEUE);
        Thread arrivals = null;
        String stoppedEarly = null;
        long cpuStart = -1;
        long cpuMeasuredStart = -1;
        long measuredBytesSent = 0;
        long measuredBytesReceived = 0;
        long measuredHandshakes = 0;
        long measuredResumed = 0;
        long measuredRetransmissions = 0;
        try {
            if (o.transport() == Transport.UDP) {
                udp = new UdpEndpoint(new InetSocketAddress(o.local(), 0), counters, this::onUdp, "lab-uac-udp");
            } else if (o.connection() == ConnectionPattern.PERSISTENT) {
                persistent = connector.connectNow(o.target(), listener());
            }
            awaitStart();
            startNanos = System.nanoTime();
            warmupEndNanos = startNanos + o.warmup().toNanos();
            long arrivalsEnd = warmupEndNanos + o.duration().toNanos();
            long hardEnd = arrivalsEnd + o.callTimeout().multipliedBy(2).plus(o.hold()).toNanos();
            arrivals = NamedThreads.named("lab-uac-arrivals").start(() -> arrive(arrivalsEnd));
            long intervalNanos = o.interval().toNanos();
            long next = startNanos + intervalNanos;
            cpuStart = ProcessCpu.micros();
            long cpuLast = cpuStart;
            long lastNanos = startNanos;
            long[] last = new long[9];
            boolean measuring = o.warmup().isZero();
            if (measuring) {
                cpuMeasuredStart = cpuStart;
            }
            while (true) {
                long now = System.nanoTime();
                if (next > now) {
                    TimeUnit.NANOSECONDS.sleep(next - now);
                }
                now = System.nanoTime();
                next += intervalNanos;
                if (!measuring && now >= warmupEndNanos) {
                    measuring = true;
                    cpuMeasuredStart = ProcessCpu.micros();
                    measuredBytesSent = counters.bytesSent();
                    measuredBytesReceived = counters.bytesReceived();
                    measuredHandshakes = counters.handshakes();
                    measuredResumed = counters.resumed();
                    measuredRetransmissions = counters.retransmissions();
                }
                long cpu = ProcessCpu.micros();
                double cpuPct = cpu < 0 || cpuLast < 0 ? -1 : (cpu - cpuLast) / 10.0 / ((now - lastNanos) / 1e6);
                // an interval that began within the warm-up is a warm-up sample
                boolean warmupSample = lastNanos < warmupEndNanos;
                cpuLast = cpu;
                lastNanos = now;
                long[] cur = {offered.sum(), started.sum(), completed.sum(), failed.sum(), counters.bytesSent(),
                    counters.bytesReceived(), counters.handshakes(), counters.resumed(), counters.retransmissions()};
                Histogram h = crt.takeInterval();
                double[] pct = RunSummary.percentilesMs(h);
                onInterval.accept(new Interval((now - startNanos) / 1e9, warmupSample, cur[0] - last[0],
                        cur[1] - last[1], cur[2] - last[2], cur[3] - last[3], cur[4] - last[4], cur[5] - last[5],
                        h.getTotalCount(), pct[0], pct[1], pct[2], pct[3], CrtBuckets.of(h), cur[6] - last[6],
                        cur[7] - last[7], cur[8] - last[8], cpuPct));
                last = cur;
                long mf = mFailed.sum();
                if (mf >= UacOptions.MIN_FAILED_TO_STOP && mf * 100.0 > o.maxFailedPct() * Math.max(1, mStarted.sum())) {
                    stoppedEarly = String.format(Locale.ROOT, "%d of %d measured calls failed (above %.2f %%)", mf,
                            mStarted.sum(), o.maxFailedPct());
                    break;
                }
                if (now >= arrivalsEnd && (inFlight.get() == 0 || now >= hardEnd)) {
                    break;
                }
            }
        } finally {
            stopArrivals = true;
            if (arrivals != null) {
                arrivals.join(1000);
            }
            for (Runnable never : workers.shutdownNow()) {
                // calls still queued when the run ended: due, never started; after an early stop
                // because of failures that is the stop, not the generator
                fail(((CallStart) never).call, stoppedEarly != null ? "stopped" : "generator_overload");
            }
            timer.shutdownNow();
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
        double seconds = Math.max(0, (System.nanoTime() - Math.max(warmupEndNanos, startNanos)) / 1e9);
        seconds = Math.min(seconds, o.duration().toNanos() / 1e9);
        long cpuEnd = ProcessCpu.micros();
        double wall = (System.nanoTime() - warmupEndNanos) / 1e9;
        double cpuPct = cpuMeasuredStart < 0 || cpuEnd < 0 || wall <= 0 ? -1 : (cpuEnd - cpuMeasuredStart) / 1e4 / wall;
        int cores = Runtime.getRuntime().availableProcessors();
        double lagMs = maxLagNanos.get() / 1e6;
        Histogram total = crt.total();
        double[] pct = RunSummary.percentilesMs(total);
        Map<String, Long> why = new HashMap<>();
        causes.forEach((k, v) -> why.put(k, v.sum()));
        return new RunSummary(description(), o.rate(), seconds, mOffered.sum(), mStarted.sum(), mCompleted.sum(),
                mFailed.sum(), why, total.getTotalCount(), pct[0], pct[1], pct[2], pct[3], CrtBuckets.of(total),
                counters.bytesSent() - measuredBytesSent, counters.bytesReceived() - measuredBytesReceived,
                counters.handshakes() - measuredHandshakes, counters.resumed() - measuredResumed,
                counters.retransmissions() - measuredRetransmissions, cpuPct, cores,
                cpuPct > 90.0 * cores || lagMs > SATURATED_LAG_MS, lagMs, stoppedEarly, o.maxFailedPct(),
                mChallenges.sum(), CallTimer.encode(total));
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
        if (o.transport() == Transport.TLS) {
            s += " " + connector.tlsEngine() + " " + String.join(",", o.tls().ciphers())
                    + " reuse " + (o.tls().sessionReuse() ? "on" : "off");
        }
        if (!o.users().isEmpty()) {
            s += ", digest auth as " + o.users().size() + " users of " + o.domain();
        }
        return s + String.format(Locale.ROOT, o.workload() == Workload.CALL ? ", %.1f cps" : ", %.1f/s", o.rate());
    }

    /** The open-loop schedule: operation n is due at start + n / rate. */
    private void arrive(long arrivalsEnd) {
        double gapNanos = 1e9 / o.rate();
        for (long i = 0; !stopArrivals; i++) {
            long due = startNanos + (long) (i * gapNanos);
            if (due >= arrivalsEnd) {
                return;
            }
            long wait = due - System.nanoTime();
            while (wait > 0 && !stopArrivals) {
                LockSupport.parkNanos(wait);
                wait = due - System.nanoTime();
            }
            long lag = -wait;
            maxLagNanos.accumulateAndGet(lag, Math::max);
            boolean measured = due >= warmupEndNanos;
            UacCall call = flow.newCall(i, due, measured, runTag);
            offered.increment();
            if (measured) {
                mOffered.increment();
            }
            inFlight.incrementAndGet();
            try {
                workers.execute(new CallStart(call));
            } catch (RejectedExecutionException e) {
                fail(call, stopArrivals ? "timeout" : "generator_overload");
            }
        }
    }

    /** An operation waiting for a worker (named so those still queued at the end can be failed). */
    private final class CallStart implements Runnable {
        final UacCall call;

        CallStart(UacCall call) {
            this.call = call;
        }

        @Override
        public void run() {
            start(call);
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
     * On a worker: a per-call connection is opened without blocking and the operation begins in the
     * connect's completion, on the connection's event loop; otherwise it begins here.
     */
    private void start(UacCall call) {
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
        StreamConnection c;
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
            started.increment();
            if (call.measured) {
                mStarted.increment();
            }
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
        if (call.measured) {
            mChallenges.increment();
        }
    }

    /** Records the operation's response time, from when it was due to now, once. */
    void responseTime(UacCall call) {
        if (!call.timed) {
            call.timed = true;
            crt.record((System.nanoTime() - call.dueNanos) / 1000, call.measured);
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
            completed.increment();
            if (call.measured) {
                mCompleted.increment();
            }
        }
    }

    /** Ends the operation as failed by {@code cause} (once; later calls do nothing). */
    void fail(UacCall call, String cause) {
        synchronized (call) {
            if (end(call)) {
                failed.increment();
                if (call.measured) {
                    mFailed.increment();
                    causes.computeIfAbsent(cause, k -> new LongAdder()).increment();
                }
                log.debug("call {} failed: {}", call.callId, cause);
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
                call.timeout.cancel(false);
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
