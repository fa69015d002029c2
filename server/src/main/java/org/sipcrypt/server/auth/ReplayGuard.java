package org.sipcrypt.server.auth;

import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Rejects a (nonce, nc) pair seen before (RFC 7616 §3.4 and §5.12), with bounded memory. Per nonce
 * it keeps the highest nonce count and a 64-bit window below it, so counts that arrive out of order
 * (pipelined requests) still pass once. At most {@code maxNonces} nonces are remembered; when one
 * must be forgotten, its issue time raises a floor, and a nonce issued at or before the floor that
 * is not remembered is {@link Verdict#FORGOTTEN}: the client gets a fresh nonce instead of a
 * chance to replay. Nonces past their lifetime are dropped first; they fail the age check anyway.
 * The state is per server: servers sharing a nonce secret do not share it.
 * Threading: thread-safe (one lock; every operation is a few map steps); never blocks.
 */
public final class ReplayGuard {

    private static final int WINDOW = 64;
    private static final long SWEEP_EVERY_MILLIS = 1_000;

    /** What a nonce count turned out to be. */
    public enum Verdict {
        /** Not seen before: accept. */
        FRESH,
        /** Seen before, or too far below the highest count: reject. */
        REPLAY,
        /** The nonce's state was dropped to stay within the bound: ask for a new nonce. */
        FORGOTTEN
    }

    private static final class Window {
        final long issuedAtMillis;
        long highest;
        long seen;

        Window(long issuedAtMillis) {
            this.issuedAtMillis = issuedAtMillis;
        }
    }

    private final int maxNonces;
    private final long lifetimeMillis;
    private final Clock clock;
    private final LinkedHashMap<String, Window> windows = new LinkedHashMap<>();
    private long floorMillis = Long.MIN_VALUE;
    private long lastSweepMillis;

    public ReplayGuard(int maxNonces, Duration lifetime, Clock clock) {
        if (maxNonces < 1) {
            throw new IllegalArgumentException("maxNonces must be at least 1: " + maxNonces);
        }
        this.maxNonces = maxNonces;
        this.lifetimeMillis = lifetime.toMillis();
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Records the use of {@code nc} with {@code nonce}; call only after the digest response has
     * been verified, so forged requests cannot fill the table.
     *
     * @param issuedAtMillis the nonce's issue time, from {@link NonceService.Check}
     * @param nc             the nonce count, at least 1
     */
    public synchronized Verdict accept(String nonce, long issuedAtMillis, long nc) {
        if (nc < 1) {
            return Verdict.REPLAY;
        }
        Window w = windows.get(nonce);
        if (w == null) {
            if (issuedAtMillis <= floorMillis) {
                return Verdict.FORGOTTEN;
            }
            makeRoom();
            w = new Window(issuedAtMillis);
            windows.put(nonce, w);
        }
        if (nc > w.highest) {
            long shift = nc - w.highest;
            w.seen = shift >= WINDOW ? 0 : w.seen << shift;
            w.seen |= 1;
            w.highest = nc;
            return Verdict.FRESH;
        }
        long below = w.highest - nc;
        if (below >= WINDOW) {
            return Verdict.REPLAY;
        }
        long bit = 1L << below;
        if ((w.seen & bit) != 0) {
            return Verdict.REPLAY;
        }
        w.seen |= bit;
        return Verdict.FRESH;
    }

    /** How many nonces are remembered now. */
    public synchronized int size() {
        return windows.size();
    }

    private void makeRoom() {
        if (windows.size() < maxNonces) {
            return;
        }
        long now = clock.millis();
        if (now - lastSweepMillis >= SWEEP_EVERY_MILLIS) {
            // a full scan, so at most once a second; in between the oldest entry makes room
            lastSweepMillis = now;
            long oldestUseful = now - lifetimeMillis;
            for (Iterator<Window> it = windows.values().iterator(); it.hasNext(); ) {
                if (it.next().issuedAtMillis < oldestUseful) {
                    it.remove();
                }
            }
        }
        Iterator<Map.Entry<String, Window>> it = windows.entrySet().iterator();
        while (windows.size() >= maxNonces && it.hasNext()) {
            floorMillis = Math.max(floorMillis, it.next().getValue().issuedAtMillis);
            it.remove();
        }
    }
}
