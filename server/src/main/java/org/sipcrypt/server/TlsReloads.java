package org.sipcrypt.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.http.AdminApi.TlsReloaded;
import org.sipcrypt.server.tls.ServerIdentities;
import org.sipcrypt.server.transport.netty.tls.TlsStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Certificate and trust renewal without a restart: the tls listener's certificates (the default and
 * each {@code tls.domain}), the trust anchors ({@code tls.trust}), the revocation lists
 * ({@code tls.crl}) and each {@code tls.peer}'s certificate, key and trust file read again on demand
 * ({@code POST /admin/tls/reload}), on SIGHUP, and, with {@code tls.watchInterval} above zero, when a
 * file's modification time, size or identity (a rename over it) changes. A reload runs on the
 * {@code sipcrypt-housekeeping} thread, never on an event loop; each stage (the listener's, each peer's) swaps in a good set whole,
 * a bad file of any kind changes nothing of its stage, fails the reload and is logged once per
 * distinct reason. Metrics:
 * {@code tls.reloads{result=ok|failed}} and {@code tls.certificate.not.after{domain}} (seconds since
 * the epoch of each presented certificate's end of validity).
 * Threading: thread-safe; reloads run one at a time on the housekeeping executor.
 */
final class TlsReloads implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TlsReloads.class);
    /** The servers of this JVM SIGHUP reloads; the handler is installed once. */
    private static final List<TlsReloads> ON_HANGUP = new CopyOnWriteArrayList<>();
    private static boolean hangupInstalled;

    private final TlsStage stage;
    /** The stages of the tls.peer entries, reloaded after the listener's. */
    private final List<TlsStage> peers;
    private final TlsConfig config;
    private final Executor executor;
    private final Counter ok;
    private final Counter failed;
    private final ScheduledFuture<?> watch;
    /** The reason of the last failed reload, logged once; null after a good one. Housekeeping thread only. */
    private String lastFailure;
    /** The files' modification times and sizes when last read. Housekeeping thread only. */
    private List<String> lastSeen;
    /** A change seen at the previous check, reloaded once it holds still for one more interval. */
    private List<String> changing;

    TlsReloads(TlsStage stage, TlsConfig config, ScheduledExecutorService housekeeping, MeterRegistry registry) {
        this(stage, List.of(), config, housekeeping, registry);
    }

    TlsReloads(TlsStage stage, java.util.Collection<TlsStage> peers, TlsConfig config,
               ScheduledExecutorService housekeeping, MeterRegistry registry) {
        this.stage = Objects.requireNonNull(stage, "stage");
        this.peers = List.copyOf(peers);
        this.config = Objects.requireNonNull(config, "config");
        this.executor = Objects.requireNonNull(housekeeping, "housekeeping");
        this.ok = Counter.builder("tls.reloads").tag("result", "ok").register(registry);
        this.failed = Counter.builder("tls.reloads").tag("result", "failed").register(registry);
        for (ServerIdentities.Identity id : stage.identities().all()) {
            String name = id.name();
            Gauge.builder("tls.certificate.not.after", stage, s -> notAfter(s, name)).tag("domain", name)
                    .baseUnit("seconds").register(registry);
        }
        this.lastSeen = fileStates();
        Duration every = config.watchInterval();
        this.watch = every.isZero() ? null : housekeeping.scheduleWithFixedDelay(this::checkFiles,
                every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static double notAfter(TlsStage stage, String name) {
        ServerIdentities.Identity id = stage.identities().named(name);
        return id == null ? Double.NaN : id.leaf().getNotAfter().toInstant().getEpochSecond();
    }

    /** Reloads on SIGHUP from now on, where the JVM lets a handler be installed. */
    void reloadOnHangup() {
        ON_HANGUP.add(this);
        synchronized (TlsReloads.class) {
            if (hangupInstalled) {
                return;
            }
            try {
                sun.misc.Signal.handle(new sun.misc.Signal("HUP"), s -> ON_HANGUP.forEach(r -> r.reload("SIGHUP")));
                hangupInstalled = true;
                log.info("SIGHUP reloads the TLS certificates");
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // the JVM keeps SIGHUP (e.g. -Xrs, or another platform): reload over HTTP or by watching
                log.info("SIGHUP cannot be handled in this JVM ({}): reload the TLS certificates with"
                        + " POST /admin/tls/reload or tls.watchInterval", e.getMessage());
            }
        }
    }

    /** Reads the files again and swaps in the new set if it is good; completes on the housekeeping thread. */
    CompletableFuture<TlsReloaded> reload(String why) {
        try {
            return CompletableFuture.supplyAsync(() -> reloadNow(why), executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(new TlsReloaded(false, "the server is stopping"));
        }
    }

    private TlsReloaded reloadNow(String why) {
        List<String> failures = new ArrayList<>();
        String presented = null;
        try {
            presented = stage.reload().toString();
        } catch (IOException | RuntimeException e) {
            failures.add(e.getMessage());
        }
        for (TlsStage peer : peers) {
            try {
                peer.reload();
            } catch (IOException | RuntimeException e) {
                failures.add(peer + ": " + e.getMessage());
            }
        }
        lastSeen = fileStates();
        if (failures.isEmpty()) {
            ok.increment();
            lastFailure = null;
            log.info("TLS certificates, trust anchors and revocation lists reloaded ({}): {}", why, presented);
            return new TlsReloaded(true, presented);
        }
        failed.increment();
        String reason = String.join("; ", failures);
        if (!Objects.equals(reason, lastFailure)) {
            log.error("TLS files NOT reloaded ({}), the previous certificates, trust anchors and revocation lists are"
                    + " still used where a file was bad: {}", why, reason);
            lastFailure = reason;
        }
        return new TlsReloaded(false, reason);
    }

    /**
     * {@code tls.watchInterval}: reloads when a watched file (certificate, key, trust or CRL) changed since it was last read
     * and then held still for one interval, so that a certificate and its key replaced one after the
     * other are read together.
     */
    private void checkFiles() {
        List<String> seen = fileStates();
        if (seen.equals(lastSeen)) {
            changing = null;
        } else if (seen.equals(changing)) {
            changing = null;
            reloadNow("files changed");
        } else {
            changing = seen;
        }
    }

    private List<String> fileStates() {
        List<Path> files = new ArrayList<>(stage.files());
        for (TlsStage peer : peers) {
            files.addAll(peer.files());
        }
        List<String> out = new ArrayList<>();
        for (Path p : files) {
            if (p == null) {
                continue;
            }
            try {
                // the file key (device and inode) too: a file replaced by a rename within the file system's
                // timestamp tick, at the same size (PEM of certificates a byte or two apart), is a change
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                out.add(p + "@" + a.lastModifiedTime().toInstant() + "/" + a.size() + "/" + a.fileKey());
            } catch (IOException e) {
                // a file being replaced may be missing for a moment: that is a change too
                out.add(p + "@missing");
            }
        }
        return out;
    }

    @Override
    public void close() {
        ON_HANGUP.remove(this);
        if (watch != null) {
            watch.cancel(false);
        }
    }
}
