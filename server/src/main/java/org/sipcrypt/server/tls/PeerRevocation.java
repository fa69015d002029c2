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
 * Whether a peer's certificate was revoked, by OCSP ({@code tls.revocation ocsp}, {@link OcspClient}),
 * by the CRLs of {@code tls.crl} ({@code crl}), or by OCSP with the CRLs deciding whenever OCSP has
 * no good or revoked answer at hand ({@code both}). OCSP answers come from the client's cache: a
 * certificate it has no answer for yet has one fetched meanwhile and is unknown for this handshake.
 * CRLs:
 * the JDK's PKIX validator with its {@link PKIXRevocationChecker} set to CRLs only
 * ({@code PREFER_CRLS}, {@code NO_FALLBACK}: never OCSP, never a network fetch), for the end-entity
 * certificate ({@code ONLY_END_ENTITY}, as Kamailio's and OpenSIPS' CRL checks do), and with
 * {@code SOFT_FAIL} under {@code tls.revocationFailure soft}. The lists come from a {@link CertStore}
 * replaced whole by {@link #reload}. Each check is counted by its result ({@link Result}), the
 * tags of {@code tls.revocation.checks{result}}.
 * Threading: thread-safe; {@link #check} never blocks (local lists, cached OCSP answers) and runs on event loops
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
    public static final PeerRevocation OFF = new PeerRevocation(TlsConfig.Revocation.OFF, false, List.of(), null, null);

    private static final RateLimitedLog rateLimited = new RateLimitedLog(LoggerFactory.getLogger(PeerRevocation.class));

    private final TlsConfig.Revocation mode;
    private final boolean hard;
    private final List<Path> files;
    private volatile CertStore lists;
    /** The OCSP answers, with {@code ocsp} or {@code both}; else null. */
    private final OcspClient ocsp;
    private final LongAdder[] counts = new LongAdder[Result.values().length];

    private PeerRevocation(TlsConfig.Revocation mode, boolean hard, List<Path> files, CertStore lists, OcspClient ocsp) {
        this.mode = mode;
        this.ocsp = ocsp;
        this.hard = hard;
        this.files = files;
        this.lists = lists;
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new LongAdder();
        }
    }

    /** The checks {@code tls} asks for, without OCSP ({@code off}, {@code crl}), its CRL files read now. */
    public static PeerRevocation of(TlsConfig tls) throws IOException {
        return of(tls, null);
    }

    /**
     * The checks {@code tls} asks for, its CRL files read now, OCSP answers from {@code ocsp} (which
     * its owner closes; needed with {@code ocsp} and {@code both}); {@link #OFF} with
     * {@code tls.revocation off}.
     */
    public static PeerRevocation of(TlsConfig tls, OcspClient ocsp) throws IOException {
        if (tls.revocation() == TlsConfig.Revocation.OFF) {
            return OFF;
        }
        if (tls.revocation().usesOcsp() && ocsp == null) {
            throw new IllegalArgumentException("tls.revocation " + tls.revocation().configName() + " needs an OCSP client");
        }
        List<Path> files = tls.revocation().usesCrls() ? List.copyOf(tls.crl()) : List.of();
        return new PeerRevocation(tls.revocation(), tls.revocationFailure() == TlsConfig.RevocationFailure.HARD,
                files, tls.revocation().usesCrls() ? read(files) : null, tls.revocation().usesOcsp() ? ocsp : null);
    }

    /** The OCSP client of the checks, or null when they ask no responder. */
    public OcspClient ocsp() {
        return ocsp;
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
        if (mode.usesCrls()) {
            install(read(files));
        }
    }

    /** Makes {@code next} (from {@link #read}) the lists checks use from now on. */
    public void install(CertStore next) {
        if (mode.usesCrls()) {
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
        X509Certificate leaf = path.get(0);
        String subject = leaf.getSubjectX500Principal().getName();
        String serial = leaf.getSerialNumber().toString(16);
        if (ocsp != null) {
            X509Certificate issuer = issuer(path, anchors);
            OcspAnswer a = issuer == null ? OcspAnswer.error(OcspAnswer.Fetch.FAILED, "its issuer is not in the chain")
                    : ocsp.cached(leaf, issuer);
            if (a != null && a.status() == Result.GOOD) {
                counts[Result.GOOD.ordinal()].increment();
                return;
            }
            if (a != null && a.status() == Result.REVOKED) {
                counts[Result.REVOKED.ordinal()].increment();
                throw new RevokedCertificateException("certificate " + subject + " (serial " + serial
                        + ") revoked (OCSP): " + a.detail(), null);
            }
            if (mode != TlsConfig.Revocation.BOTH) {
                unknown(subject, serial, "OCSP: " + (a == null ? "no answer yet, being fetched" : a.detail()));
                return;
            }
            // both: no OCSP answer to go by, the lists decide
        }
        checkLists(path, anchors, subject, serial);
    }

    /**
     * The issuer of {@code path}'s first certificate: the next one, or the trust anchor named as its
     * issuer whose key verifies its signature; null when neither is.
     */
    private static X509Certificate issuer(List<X509Certificate> path, Set<TrustAnchor> anchors) {
        X509Certificate leaf = path.get(0);
        if (path.size() > 1 && leaf.getIssuerX500Principal().equals(path.get(1).getSubjectX500Principal())) {
            return path.get(1);
        }
        for (TrustAnchor a : anchors) {
            X509Certificate c = a.getTrustedCert();
            if (c != null && leaf.getIssuerX500Principal().equals(c.getSubjectX500Principal())) {
                try {
                    leaf.verify(c.getPublicKey());
                    return c;
                } catch (GeneralSecurityException e) {
                    // another anchor of the same name: try the next
                }
            }
        }
        return null;
    }

    /** A status that cannot be learned: counted, then refused under hard, accepted with a WARN under soft. */
    private void unknown(String subject, String serial, String why) throws CertificateException {
        counts[Result.UNKNOWN.ordinal()].increment();
        if (hard) {
            throw new CertificateException("revocation status of certificate " + subject + " (serial " + serial
                    + ") unknown, refused (tls.revocationFailure=hard): " + why);
        }
        rateLimited.warn("revocation_unknown", "revocation status of certificate {} (serial {}) unknown, accepted"
                + " (tls.revocationFailure=soft): {}", subject, serial, why);
    }

    private void checkLists(List<X509Certificate> path, Set<TrustAnchor> anchors, String subject, String serial)
            throws CertificateException {
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
        if (!enabled()) {
            return "off";
        }
        String from = (mode.usesOcsp() ? "OCSP " + (ocsp.responder() == null ? "responders the certificates name"
                : ocsp.responder().toString()) : "") + (mode == TlsConfig.Revocation.BOTH ? ", then " : "")
                + (mode.usesCrls() ? files.toString() : "");
        return mode.configName() + " (" + (hard ? "hard" : "soft") + " failure) from " + from;
    }
}
