package org.sipcrypt.server.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXRevocationChecker;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.transport.RateLimitedLog;
import org.slf4j.LoggerFactory;

/**
 * Whether a peer's certificate was revoked, by the CRLs of {@code tls.crl} ({@code tls.revocation crl}):
 * the JDK's PKIX validator with its {@link PKIXRevocationChecker} set to CRLs only
 * ({@code PREFER_CRLS}, {@code NO_FALLBACK}: never OCSP, never a network fetch), for the end-entity
 * certificate ({@code ONLY_END_ENTITY}, as Kamailio's and OpenSIPS' CRL checks do), and with
 * {@code SOFT_FAIL} under {@code tls.revocationFailure soft}. The lists come from a {@link CertStore}
 * replaced whole by {@link #reload}. Each check is counted by its result ({@link Result}), the
 * tags of {@code tls.revocation.checks{result}}. OCSP is not built.
 * Threading: thread-safe; {@link #check} never blocks (local lists only) and runs on event loops
 * inside the handshake; {@link #read}/{@link #reload} read files (never on an event loop).
 */
public final class PeerRevocation {

    /** The outcome of one check, and the tag it is counted under. */
    public enum Result {
        /** Not revoked by a current list of its issuer. */
        GOOD,
        /** Revoked: refused. */
        REVOKED,
        /** No current list covers it: accepted under soft, refused under hard. */
        UNKNOWN,
        /** The check itself failed (a path the validator would not take): refused. */
        ERROR;

        /** The metric tag. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** No revocation checks ({@code tls.revocation off}). */
    public static final PeerRevocation OFF = new PeerRevocation(TlsConfig.Revocation.OFF, false, List.of(), null);

    private static final RateLimitedLog rateLimited = new RateLimitedLog(LoggerFactory.getLogger(PeerRevocation.class));

    private final TlsConfig.Revocation mode;
    private final boolean hard;
    private final List<Path> files;
    private volatile CertStore lists;
    private final LongAdder[] counts = new LongAdder[Result.values().length];

    private PeerRevocation(TlsConfig.Revocation mode, boolean hard, List<Path> files, CertStore lists) {
        this.mode = mode;
        this.hard = hard;
        this.files = files;
        this.lists = lists;
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new LongAdder();
        }
    }

    /** The checks {@code tls} asks for, its CRL files read now; {@link #OFF} with {@code tls.revocation off}. */
    public static PeerRevocation of(TlsConfig tls) throws IOException {
        if (tls.revocation() == TlsConfig.Revocation.OFF) {
            return OFF;
        }
        return new PeerRevocation(tls.revocation(), tls.revocationFailure() == TlsConfig.RevocationFailure.HARD,
                List.copyOf(tls.crl()), read(tls.crl()));
    }

    /** Every CRL of {@code files} in one store; the first file that is not a CRL fails the whole read. */
    public static CertStore read(List<Path> files) throws IOException {
        List<X509CRL> all = new ArrayList<>();
        for (Path f : files) {
            all.addAll(CrlFiles.read(f));
        }
        try {
            return CertStore.getInstance("Collection", new CollectionCertStoreParameters(all));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no Collection CertStore", e);
        }
    }

    /** Whether certificates are checked at all. */
    public boolean enabled() {
        return mode != TlsConfig.Revocation.OFF;
    }

    /**
     * Reads the files again; the lists read replace the current ones whole only when every file is
     * good (else they stay, and the exception names the file at fault). Nothing with checks off.
     */
    public void reload() throws IOException {
        if (enabled()) {
            install(read(files));
        }
    }

    /** Makes {@code next} (from {@link #read}) the lists checks use from now on. */
    public void install(CertStore next) {
        if (enabled()) {
            lists = Objects.requireNonNull(next, "next");
        }
    }

    /** The files read by {@link #reload}. */
    public List<Path> files() {
        return files;
    }

    /** How many checks ended with {@code result} since the start. */
    public long count(Result result) {
        return counts[result.ordinal()].sum();
    }

    /**
     * Checks the end-entity certificate of {@code chain}, already validated against {@code anchors},
     * against the current lists.
     *
     * @throws RevokedCertificateException when its issuer revoked it
     * @throws CertificateException when its status is unknown under hard failure, or the check failed
     */
    public void check(X509Certificate[] chain, Set<TrustAnchor> anchors) throws CertificateException {
        if (!enabled()) {
            return;
        }
        List<X509Certificate> path = new ArrayList<>(chain.length);
        for (X509Certificate c : chain) {
            if (isAnchor(c, anchors)) {
                break;
            }
            path.add(c);
        }
        if (path.isEmpty()) {
            // the peer presented a trust anchor itself: nothing above it could have revoked it
            counts[Result.GOOD.ordinal()].increment();
            return;
        }
        String subject = path.get(0).getSubjectX500Principal().getName();
        String serial = path.get(0).getSerialNumber().toString(16);
        PKIXRevocationChecker checker;
        CertPathValidator validator;
        PKIXParameters params;
        CertPath certPath;
        try {
            certPath = CertificateFactory.getInstance("X.509").generateCertPath(path);
            validator = CertPathValidator.getInstance("PKIX");
            checker = (PKIXRevocationChecker) validator.getRevocationChecker();
            EnumSet<PKIXRevocationChecker.Option> options = EnumSet.of(PKIXRevocationChecker.Option.PREFER_CRLS,
                    PKIXRevocationChecker.Option.NO_FALLBACK, PKIXRevocationChecker.Option.ONLY_END_ENTITY);
            if (!hard) {
                options.add(PKIXRevocationChecker.Option.SOFT_FAIL);
            }
            checker.setOptions(options);
            params = new PKIXParameters(anchors);
            params.addCertStore(lists);
            params.addCertPathChecker(checker);
        } catch (GeneralSecurityException | RuntimeException e) {
            counts[Result.ERROR.ordinal()].increment();
            throw new CertificateException("revocation check of " + subject + " could not start: " + e.getMessage(), e);
        }
        try {
            validator.validate(certPath, params);
        } catch (CertPathValidatorException e) {
            if (e.getReason() == CertPathValidatorException.BasicReason.REVOKED) {
                counts[Result.REVOKED.ordinal()].increment();
                throw new RevokedCertificateException("certificate " + subject + " (serial " + serial
                        + ") revoked: " + e.getMessage(), e);
            }
            if (e.getReason() == CertPathValidatorException.BasicReason.UNDETERMINED_REVOCATION_STATUS) {
                counts[Result.UNKNOWN.ordinal()].increment();
                throw new CertificateException("revocation status of certificate " + subject + " (serial " + serial
                        + ") unknown, refused (tls.revocationFailure=hard): " + e.getMessage(), e);
            }
            counts[Result.ERROR.ordinal()].increment();
            throw new CertificateException("revocation check of " + subject + " failed: " + e.getMessage(), e);
        } catch (GeneralSecurityException | RuntimeException e) {
            counts[Result.ERROR.ordinal()].increment();
            throw new CertificateException("revocation check of " + subject + " failed: " + e.getMessage(), e);
        }
        if (!checker.getSoftFailExceptions().isEmpty()) {
            counts[Result.UNKNOWN.ordinal()].increment();
            rateLimited.warn("revocation_unknown", "revocation status of certificate {} (serial {}) unknown, accepted"
                    + " (tls.revocationFailure=soft): {}", subject, serial,
                    checker.getSoftFailExceptions().get(0).getMessage());
            return;
        }
        counts[Result.GOOD.ordinal()].increment();
    }

    private static boolean isAnchor(X509Certificate c, Set<TrustAnchor> anchors) {
        for (TrustAnchor a : anchors) {
            if (c.equals(a.getTrustedCert())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return enabled() ? mode.configName() + " (" + (hard ? "hard" : "soft") + " failure) from " + files : "off";
    }
}
