package org.sipcrypt.server.sip;

import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.stack.SIPStackTimerTask;
import gov.nist.javax.sip.stack.timers.SipTimer;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JAIN-SIP's transaction timers (RFC 3261 §17: retransmissions, timeouts, the periodic transaction
 * tick) on Netty's hashed wheel instead of JAIN-SIP's {@code ScheduledThreadPoolExecutor}. Every
 * transaction schedules and cancels several timers; on the wheel scheduling and cancelling cost the
 * same however many timers are pending and wake no thread (the executor keeps a heap under one lock,
 * shared by the lanes and its thread, wakes its thread whenever a new timer is due first, and scans
 * its whole queue every 50 cancellations). The price is resolution: a timer fires up to one tick
 * ({@link #TICK_MS} ms) after it is due, a small fraction of the 500 ms T1 the timers are built on.
 * Named by {@code gov.nist.javax.sip.TIMER_CLASS_NAME}; JAIN-SIP creates it, starts and stops it
 * with the stack.
 * Threading: thread-safe; the tasks run on its one thread {@code sipcrypt-sip-timer}, one at a time.
 */
public final class WheelSipTimer implements SipTimer {

    /** The wheel's tick: how late a timer may fire. */
    static final long TICK_MS = 10;
    /** Slots of the wheel: one turn is 10.24 s, longer than every timer but Timer B/F/H (32 s) and C. */
    private static final int SLOTS = 1024;

    private static final Logger log = LoggerFactory.getLogger(WheelSipTimer.class);

    private final HashedWheelTimer wheel = new HashedWheelTimer(new DefaultThreadFactory("sipcrypt-sip-timer", true),
            TICK_MS, TimeUnit.MILLISECONDS, SLOTS);
    private volatile boolean started;
    /** Whether {@link #stop} interrupts its caller: see {@link #endStackSleepOnStop}. */
    private volatile boolean endStackSleep;

    /** JAIN-SIP creates the timer by its class name. */
    public WheelSipTimer() {
    }

    @Override
    public void start(SipStackImpl stack, Properties configuration) {
        wheel.start();
        started = true;
    }

    /**
     * Stops the wheel; Netty's stop joins the wheel's thread, so no timer runs after this returns.
     * When {@link #endStackSleepOnStop asked}, then interrupts the calling thread.
     */
    @Override
    public void stop() {
        started = false;
        wheel.stop();
        if (endStackSleep) {
            endStackSleep = false;
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Has the next {@link #stop} interrupt its caller. JAIN-SIP's stack stop sleeps 1 s right after it
     * stops its timer ({@code SIPTransactionStack.stopStack}, which catches the interruption), for its
     * own socket threads and timer threads to notice the stop; the stack this timer serves runs none
     * (Netty's transport, and this wheel, whose thread has ended), so the sleep only delays every
     * server's stop. {@link SipcryptSipStack#stop} asks for it and checks that the sleep took the interruption.
     */
    void endStackSleepOnStop() {
        endStackSleep = true;
    }

    @Override
    public boolean isStarted() {
        return started;
    }

    @Override
    public boolean schedule(SIPStackTimerTask task, long delayMillis) {
        task.setSipTimerTask(wheel.newTimeout(t -> run(task), delayMillis, TimeUnit.MILLISECONDS));
        return true;
    }

    @Override
    public boolean scheduleWithFixedDelay(SIPStackTimerTask task, long delayMillis, long periodMillis) {
        Periodic p = new Periodic(task, periodMillis);
        task.setSipTimerTask(p);
        p.next = wheel.newTimeout(p, delayMillis, TimeUnit.MILLISECONDS);
        return true;
    }

    @Override
    public boolean cancel(SIPStackTimerTask task) {
        Object handle = task.getSipTimerTask();
        if (handle == null) {
            return false;
        }
        task.cleanUpBeforeCancel();
        task.setSipTimerTask(null);
        return handle instanceof Periodic p ? p.cancel() : ((Timeout) handle).cancel();
    }

    private static void run(SIPStackTimerTask task) {
        try {
            task.runTask();
        } catch (RuntimeException | Error e) {
            log.warn("a SIP transaction timer failed: {}", e.toString(), e);
        }
    }

    /**
     * A fixed-delay timer: each run schedules the next one {@code period} after it ends, until
     * cancelled.
     * Threading: runs on the timer thread; {@link #cancel} from any thread.
     */
    private final class Periodic implements TimerTask {
        private final SIPStackTimerTask task;
        private final long periodMillis;
        private volatile boolean cancelled;
        volatile Timeout next;

        Periodic(SIPStackTimerTask task, long periodMillis) {
            this.task = task;
            this.periodMillis = periodMillis;
        }

        @Override
        public void run(Timeout timeout) {
            if (cancelled) {
                return;
            }
            WheelSipTimer.run(task);
            if (!cancelled && started) {
                next = wheel.newTimeout(this, periodMillis, TimeUnit.MILLISECONDS);
            }
        }

        boolean cancel() {
            cancelled = true;
            Timeout t = next;
            return t == null || t.cancel() || t.isExpired();
        }
    }
}
