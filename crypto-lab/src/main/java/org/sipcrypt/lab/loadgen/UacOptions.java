package org.sipcrypt.lab.loadgen;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * What a UAC run does: where it calls, over which transport and connection pattern, with which TLS
 * settings, at which rate for how long, and when it gives up.
 * Threading: immutable.
 *
 * @param target       the next hop every call goes to (a proxy, or a UAS directly)
 * @param transport    UDP, TCP or TLS
 * @param connection   for TCP and TLS: one connection for all calls, or one per call
 * @param tls          TLS settings (TLS only), else null
 * @param rate         calls per second, open loop
 * @param duration     how long calls are started after the warm-up
 * @param warmup       calls due in this first part are made but not in the summary
 * @param callTimeout  a call not answered 200 to its INVITE within this, or to its BYE within this,
 *                     fails as {@code timeout}
 * @param hold         time between the ACK and the BYE
 * @param maxFailedPct the run stops when more than this % of measured calls failed (at least
 *                     {@link #MIN_FAILED_TO_STOP} of them), and fails when it ends above it
 * @param requestUri   the Request-URI of each INVITE
 * @param local        the local address to send from (Via and Contact)
 * @param interval     the sample interval
 */
public record UacOptions(InetSocketAddress target, Transport transport, ConnectionPattern connection, TlsOptions tls,
                         double rate, Duration duration, Duration warmup, Duration callTimeout, Duration hold,
                         double maxFailedPct, String requestUri, InetAddress local, Duration interval) {

    /** Failed calls needed before the failure threshold can stop a run. */
    public static final int MIN_FAILED_TO_STOP = 10;

    public UacOptions {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(requestUri, "requestUri");
        Objects.requireNonNull(local, "local");
        if (transport == Transport.TLS && tls == null) {
            throw new IllegalArgumentException("tls: a TLS run needs TLS options");
        }
        if (!(rate > 0) || rate > 100_000) {
            throw new IllegalArgumentException("--rate: " + rate + " (expected 0 < rate <= 100000 calls/s)");
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("--duration: " + duration + " (expected more than 0)");
        }
        if (warmup.isNegative() || hold.isNegative()) {
            throw new IllegalArgumentException("--warmup and --hold: expected 0 or more");
        }
        if (callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("--call-timeout: " + callTimeout + " (expected more than 0)");
        }
        if (maxFailedPct < 0 || maxFailedPct > 100) {
            throw new IllegalArgumentException("--max-failed-pct: " + maxFailedPct + " (expected 0 to 100)");
        }
    }
}
