package org.sipcrypt.lab.loadgen;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;

/**
 * What a UAC run does: which operations ({@link Workload}: calls, registrations, INVITEs answered
 * 404 or 302, OPTIONS to the target), as which users with which passwords, where to, over which transport and connection
 * pattern, with which TLS settings, at which rate for how long, and when it gives up. The first
 * thirteen components are those of a call run; the constructor of those alone runs calls as
 * {@code lab-uac} without authentication, starting at once.
 * Threading: immutable.
 *
 * @param target       the next hop every operation goes to (a proxy, registrar, redirect server, or a UAS directly)
 * @param transport    UDP, TCP or TLS
 * @param connection   for TCP and TLS: one connection for all calls, or one per call
 * @param tls          TLS settings (TLS only), else null
 * @param rate         operations per second, open loop
 * @param duration     how long operations are started after the warm-up
 * @param warmup       operations due in this first part are made but not in the summary
 * @param callTimeout  an operation whose INVITE or first REGISTER (a digest challenge included) is not
 *                     answered within this, or whose BYE or second REGISTER is not, fails as {@code timeout}
 * @param hold         time between the ACK and the BYE
 * @param maxFailedPct the run stops when more than this % of measured operations failed (at least
 *                     {@link #MIN_FAILED_TO_STOP} of them), and fails when it ends above it
 * @param requestUri   the Request-URI of each INVITE of the {@code call} workload (and of
 *                     {@code redirect} without users)
 * @param local        the local address to send from (Via and Contact)
 * @param interval     the sample interval
 * @param workload     what each operation does; null means {@link Workload#CALL}
 * @param domain       the domain of the users: REGISTER goes to {@code sip:DOMAIN} for
 *                     {@code sip:USER@DOMAIN}, {@code redirect} and {@code invite-not-found} INVITE
 *                     {@code sip:USER@DOMAIN}, and calls come from it when users are given; null means
 *                     the target's host
 * @param users        who operation i acts as: user i mod N, whose password answers digest challenges
 *                     (RFC 3261 §22.2); empty for no authentication (calls then come from
 *                     {@code lab-uac}, registrations from {@code lab-uac-0} to {@code lab-uac-99})
 * @param registerContact where the Contact of each REGISTER points (the run's transport), e.g. a lab UAS
 *                     callers are redirected to; null for the generator's own address
 * @param startAt      the wall-clock time the schedule begins, so that several generator processes
 *                     begin together; null (or a time passed) for at once after the transport is set up
 * @param oneWayDelay  the lab delay stage's one-way delay on every connection and datagram of the run
 *                     ({@link OneWayDelayHandler}, {@link DatagramDelayLine}); zero (or null) for none
 */
public record UacOptions(InetSocketAddress target, Transport transport, ConnectionPattern connection, TlsOptions tls,
                         double rate, Duration duration, Duration warmup, Duration callTimeout, Duration hold,
                         double maxFailedPct, String requestUri, InetAddress local, Duration interval,
                         Workload workload, String domain, List<Credential> users, InetSocketAddress registerContact,
                         Instant startAt, Duration oneWayDelay) {

    /** The largest one-way delay the lab delay stage takes. */
    public static final Duration MAX_ONE_WAY_DELAY = Duration.ofSeconds(10);

    /** Failed calls needed before the failure threshold can stop a run. */
    public static final int MIN_FAILED_TO_STOP = 10;

    public UacOptions {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(requestUri, "requestUri");
        Objects.requireNonNull(local, "local");
        workload = workload == null ? Workload.CALL : workload;
        domain = domain == null ? hostOf(target) : domain;
        users = users == null ? List.of() : List.copyOf(users);
        oneWayDelay = oneWayDelay == null ? Duration.ZERO : oneWayDelay;
        if (oneWayDelay.isNegative() || oneWayDelay.compareTo(MAX_ONE_WAY_DELAY) > 0) {
            throw new IllegalArgumentException("--one-way-delay: " + oneWayDelay + " (expected 0 to "
                    + MAX_ONE_WAY_DELAY.toSeconds() + "s)");
        }
        if (!domain.matches("[A-Za-z0-9.:\\[\\]-]+")) {
            throw new IllegalArgumentException("--domain: \"" + domain + "\" (expected a host name or IP address)");
        }
        if (transport.secure() && tls == null) {
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

    /**
     * A call run as {@code lab-uac}, without authentication, starting at once.
     */
    public UacOptions(InetSocketAddress target, Transport transport, ConnectionPattern connection, TlsOptions tls,
                      double rate, Duration duration, Duration warmup, Duration callTimeout, Duration hold,
                      double maxFailedPct, String requestUri, InetAddress local, Duration interval) {
        this(target, transport, connection, tls, rate, duration, warmup, callTimeout, hold, maxFailedPct, requestUri,
                local, interval, Workload.CALL, null, List.of(), null, null, Duration.ZERO);
    }

    /** A copy running another workload. */
    public UacOptions withWorkload(Workload w) {
        return with(w, domain, users);
    }

    /** A copy acting as these users (empty: no authentication). */
    public UacOptions withUsers(List<Credential> u) {
        return with(workload, domain, u);
    }

    /** A copy with another users' domain. */
    public UacOptions withDomain(String d) {
        return with(workload, d, users);
    }

    /** A copy with another one-way delay (zero for none). */
    public UacOptions withOneWayDelay(Duration delay) {
        return new UacOptions(target, transport, connection, tls, rate, duration, warmup, callTimeout, hold,
                maxFailedPct, requestUri, local, interval, workload, domain, users, registerContact, startAt, delay);
    }

    private UacOptions with(Workload w, String d, List<Credential> u) {
        return new UacOptions(target, transport, connection, tls, rate, duration, warmup, callTimeout, hold,
                maxFailedPct, requestUri, local, interval, w, d, u, registerContact, startAt, oneWayDelay);
    }

    /** The host of an address as it stands in a SIP URI (IPv6 in brackets, RFC 3261 §25.1). */
    static String hostOf(InetSocketAddress a) {
        String h = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
        return h.indexOf(':') >= 0 ? "[" + h + "]" : h;
    }
}
