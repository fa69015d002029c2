package org.sipcrypt.server.tls;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.slf4j.LoggerFactory;

/**
 * The OCSP response (RFC 6960) the tls listener staples for its own certificate ({@code tls.ocspStapling},
 * RFC 6066 §8): fetched by the {@link OcspClient} for the certificate presented now ({@code tls.cert},
 * its issuer the next certificate of the chain), checked as a peer's would be, and fetched again every
 * {@link #TICK} once half the time to its nextUpdate (at most {@code tls.ocspCacheTime}) has passed, at
 * the first look after a reload replaced the certificate, and {@link OcspClient#FAILURE_KEPT} after a failure.
 * A response is stapled only for the certificate it is about and only until its nextUpdate.
 * Threading: thread-safe; {@link #current} never blocks (event loops); fetches are started on the
 * one thread {@code sipcrypt-ocsp-staple} and complete on {@code sipcrypt-ocsp}.
 */
public final class OcspStaple implements AutoCloseable {

    /** How often the staple looks whether it is due for a fetch. */
    public static final Duration TICK = Duration.ofSeconds(5);

    private static final RateLimitedLog rateLimited = new RateLimitedLog(LoggerFactory.getLogger(OcspStaple.class));

    /** A verified response and what it is about; immutable. */
    private record Held(X509Certificate leaf, byte[] der, Instant nextUpdate) {
    }

    private final CurrentIdentities identities;
    private final OcspClient ocsp;
    private final Duration cacheTime;
    private final ScheduledThreadPoolExecutor scheduler = NamedThreads.named("sipcrypt-ocsp-staple").scheduler();
    private volatile Held held;
    /** When the next fetch for {@link #attempted} is due. */
    private Instant due = Instant.MIN;
    /** The certificate last fetched for. */
    private X509Certificate attempted;
    /** The certificate a running fetch is for, or null. */
    private X509Certificate fetching;

    public OcspStaple(CurrentIdentities identities, OcspClient ocsp, Duration cacheTime) {
        this.identities = identities;
        this.ocsp = ocsp;
        this.cacheTime = cacheTime;
    }

    /** Fetches the first response now and looks again every {@link #TICK}. */
    public void start() {
        scheduler.scheduleWithFixedDelay(this::tick, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * The DER response to staple for {@code leaf} now, or null when there is none for it (not fetched
     * yet, failed, for another certificate, or past its nextUpdate).
     */
    public byte[] current(X509Certificate leaf) {
        Held h = held;
        if (h == null || !h.leaf().equals(leaf) || h.nextUpdate() != null && !ocsp.now().isBefore(h.nextUpdate())) {
            return null;
        }
        return h.der();
    }

    private void tick() {
        try {
            due();
        } catch (RuntimeException e) {
            // a periodic task that throws is never run again: the staple would silently go stale
            rateLimited.warn("staple_error", "tls.ocspStapling: the refresh failed: {}", e.toString());
        }
    }

    private synchronized void due() {
        // one snapshot: a reload may replace the set meanwhile
        ServerIdentities.Identity presented = identities.current().fallback();
        if (presented == null || fetching != null) {
            return;
        }
        X509Certificate leaf = presented.leaf();
        Instant now = ocsp.now();
        // due: half-way to the held response's nextUpdate, or a while after a failure; a new certificate at once
        if (leaf.equals(attempted) && now.isBefore(due)) {
            return;
        }
        attempted = leaf;
        List<X509Certificate> chain = presented.material().chain();
        if (chain.size() < 2 || !leaf.getIssuerX500Principal().equals(chain.get(1).getSubjectX500Principal())) {
            rateLimited.warn("staple_no_issuer", "tls.ocspStapling: nothing stapled: {} is not followed by its issuer"
                    + " in tls.cert (the OCSP request names the issuer's key)", leaf.getSubjectX500Principal().getName());
            due = now.plus(OcspClient.FAILURE_KEPT);
            return;
        }
        fetching = leaf;
        ocsp.fetch(leaf, chain.get(1), true).thenAccept(f -> fetched(leaf, f));
    }

    private synchronized void fetched(X509Certificate leaf, OcspClient.Fetched f) {
        fetching = null;
        Instant now = ocsp.now();
        if (f.der() == null) {
            rateLimited.warn("staple_failed", "tls.ocspStapling: no OCSP response for {} to staple: {}",
                    leaf.getSubjectX500Principal().getName(), f.answer());
            due = now.plus(OcspClient.FAILURE_KEPT);
            return;
        }
        if (f.answer().status() != PeerRevocation.Result.GOOD) {
            // stapled all the same: clients learn it either way, and the operator must act
            LoggerFactory.getLogger(OcspStaple.class).error("tls.ocspStapling: the responder says the listener's"
                    + " certificate {} is {}", leaf.getSubjectX500Principal().getName(), f.answer());
        }
        Instant nextUpdate = f.answer().nextUpdate();
        Duration half = nextUpdate == null ? cacheTime : Duration.between(now, nextUpdate).dividedBy(2);
        Duration wait = half.compareTo(cacheTime) > 0 ? cacheTime : half;
        if (wait.compareTo(TICK) < 0) {
            wait = TICK;
        }
        held = new Held(leaf, f.der(), nextUpdate);
        due = now.plus(wait);
    }

    /** Stops the refreshes. */
    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
