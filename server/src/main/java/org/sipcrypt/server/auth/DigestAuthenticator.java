package org.sipcrypt.server.auth;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.ListIterator;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import javax.sip.PeerUnavailableException;
import javax.sip.SipFactory;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.AuthorizationHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.Header;
import javax.sip.header.ProxyAuthorizationHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import org.sipcrypt.server.config.AuthConfig;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.location.Subscriber;

/**
 * Checks the digest credentials of a request (RFC 3261 §22, RFC 7616 §3.4): REGISTER carries them
 * in Authorization (challenged with 401), every other request in Proxy-Authorization (407). The
 * checks that need no database run first (form, realm, the digest uri against the Request-URI,
 * identity, nonce MAC and age); then the
 * subscriber is looked up through the {@link CredentialBatcher} and the response compared; last,
 * the nonce count is checked against replays. Unknown users, disabled users and wrong passwords
 * get the same answer, after the same hashing work.
 * Threading: thread-safe; never blocks: {@link #authenticate} returns a future completed on a
 * lookup thread (or at once when no lookup is needed).
 */
public final class DigestAuthenticator {

    private static final Pattern NONCE_COUNT = Pattern.compile("[0-9a-fA-F]{8}");
    private static final String FORBIDDEN = "Forbidden";
    /** Stands in for a missing subscriber so a refusal costs the same hashing either way. */
    private static final String NO_HA1 = "0".repeat(64);
    /** Parses a digest uri for {@link #sameUri}, through JAIN-SIP's public factory (no stack needs to run). */
    private static final AddressFactory URIS = uriFactory();

    private final AuthConfig config;
    private final String realm;
    private final NonceService nonces;
    private final ReplayGuard replays;
    private final CredentialBatcher credentials;
    private final MeterRegistry registry;
    private final Predicate<String> ourDomain;

    /**
     * @param ourDomain whether a host is one of the domains (or addresses) this server serves: with
     *                  {@code auth.matchIdentity}, the identity a subscriber speaks for must be in
     *                  one of them or in the realm itself
     */
    public DigestAuthenticator(AuthConfig config, String realm, NonceService nonces, ReplayGuard replays,
                               CredentialBatcher credentials, MeterRegistry registry, Predicate<String> ourDomain) {
        this.config = Objects.requireNonNull(config, "config");
        this.realm = Objects.requireNonNull(realm, "realm");
        this.ourDomain = Objects.requireNonNull(ourDomain, "ourDomain");
        this.nonces = Objects.requireNonNull(nonces, "nonces");
        this.replays = Objects.requireNonNull(replays, "replays");
        this.credentials = Objects.requireNonNull(credentials, "credentials");
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** The realm challenges name. */
    public String realm() {
        return realm;
    }

    /** The nonces challenges carry. */
    public NonceService nonces() {
        return nonces;
    }

    /** The algorithms offered, most preferred first. */
    public java.util.List<DigestAlgorithm> algorithms() {
        return config.algorithms();
    }


    /**
     * Checks the request's credentials for our realm.
     *
     * @param asRegistrar   true for a REGISTER our registrar handles: credentials in Authorization,
     *                      identity from To; otherwise Proxy-Authorization and From
     * @param clientAddress the IP address the request came from, for nonces bound to it
     */
    public CompletableFuture<AuthResult> authenticate(Request request, boolean asRegistrar, String clientAddress) {
        CompletableFuture<AuthResult> result = check(request, asRegistrar, clientAddress);
        return result.whenComplete((r, e) -> {
            if (r != null) {
                count(r);
            }
        });
    }

    /**
     * Counts an outcome in {@code auth.outcomes{result}}: every outcome of {@link #authenticate}, and
     * the challenges given without it (a request answered from its bytes).
     */
    public void count(AuthResult result) {
        registry.counter("auth.outcomes", "result", result.tag()).increment();
    }

    private CompletableFuture<AuthResult> check(Request request, boolean asRegistrar, String clientAddress) {
        String headerName = asRegistrar ? AuthorizationHeader.NAME : ProxyAuthorizationHeader.NAME;
        AuthorizationHeader creds = ourCredentials(request, headerName);
        if (creds == null) {
            if (hasUnparsed(request, headerName)) {
                return done(new AuthResult.Malformed("Bad " + headerName + " header"));
            }
            return done(new AuthResult.Challenge(false, "no_credentials"));
        }
        String username = creds.getUsername();
        String nonce = creds.getNonce();
        String uri = creds.getParameter("uri");
        String response = creds.getResponse();
        for (String[] p : new String[][] {{"username", username}, {"nonce", nonce}, {"uri", uri},
                {"response", response}}) {
            if (p[1] == null || p[1].isEmpty()) {
                return done(new AuthResult.Malformed("Missing " + p[0] + " in " + headerName));
            }
        }
        DigestAlgorithm algorithm = DigestAlgorithm.fromToken(creds.getAlgorithm());
        if (algorithm == null || !config.algorithms().contains(algorithm)) {
            return done(new AuthResult.Challenge(false, "algorithm"));
        }
        String qop = creds.getQop();
        String nc = creds.getParameter("nc");
        String cnonce = creds.getCNonce();
        if (qop != null) {
            if (!"auth".equalsIgnoreCase(qop)) {
                return done(new AuthResult.Malformed("Unsupported qop " + shorten(qop)));
            }
            if (nc == null || !NONCE_COUNT.matcher(nc).matches() || cnonce == null || cnonce.isEmpty()) {
                return done(new AuthResult.Malformed("Bad nc or cnonce in " + headerName));
            }
            qop = "auth";
        } else if (!config.legacyNoQop()) {
            return done(new AuthResult.Challenge(false, "no_qop"));
        }
        int hexLength = algorithm == DigestAlgorithm.MD5 ? 32 : 64;
        if (response.length() != hexLength) {
            return done(new AuthResult.Malformed("Bad response length in " + headerName));
        }
        if (!config.labSkipUriCheck() && !sameUri(uri, request.getRequestURI())) {
            // RFC 7616 §3.4.6: the digest covers this uri, so credentials for one Request-URI
            // must not be spent on another (a captured INVITE to bob placing a call elsewhere)
            return done(new AuthResult.Refused("Digest URI Mismatch", "uri_mismatch"));
        }
        if (config.matchIdentity()) {
            // RFC 3261 §22.4 leaves the mapping to policy; ours: one may only act as oneself, and a
            // subscriber of our realm is one only in our domains (as Kamailio's auth_check("$fd"))
            SipURI identity = identity(request, asRegistrar);
            if (identity == null || !username.equals(identity.getUser())) {
                return done(new AuthResult.Refused("Identity Mismatch", "identity"));
            }
            if (!realm.equalsIgnoreCase(identity.getHost()) && !ourDomain.test(identity.getHost())) {
                return done(new AuthResult.Refused("Domain Not Served Here", "foreign_domain"));
            }
        }
        NonceService.Check nonceCheck = nonces.check(nonce, clientAddress);
        if (nonceCheck.status() == NonceService.Status.INVALID) {
            return done(new AuthResult.Challenge(false, "invalid_nonce"));
        }
        String method = request.getMethod();
        String finalQop = qop;
        CompletableFuture<Optional<Subscriber>> lookup = credentials.lookup(username);
        return lookup.handle((found, failure) -> {
            if (failure != null) {
                return new AuthResult.Unavailable(failure);
            }
            Subscriber s = found.filter(Subscriber::enabled).orElse(null);
            String ha1 = s == null ? NO_HA1.substring(0, hexLength)
                    : algorithm == DigestAlgorithm.MD5 ? s.ha1Md5() : s.ha1Sha256();
            String expected = algorithm.response(ha1, nonce, nc, cnonce, finalQop, method, uri);
            boolean match = DigestAlgorithm.sameDigest(expected, response);
            if (s == null || !match) {
                return config.onFailure() == AuthConfig.FailureAnswer.CHALLENGE
                        ? new AuthResult.Challenge(false, "failed")
                        : new AuthResult.Refused(FORBIDDEN, "failed");
            }
            if (nonceCheck.status() == NonceService.Status.STALE) {
                // right password, old nonce: RFC 7616 §3.3 stale=true, so the client retries silently
                return new AuthResult.Challenge(true, "stale_nonce");
            }
            if (finalQop != null) {
                ReplayGuard.Verdict v = replays.accept(nonce, nonceCheck.issuedAtMillis(), Long.parseLong(nc, 16));
                if (v != ReplayGuard.Verdict.FRESH) {
                    return new AuthResult.Challenge(true, v == ReplayGuard.Verdict.REPLAY ? "replay" : "forgotten");
                }
            }
            return new AuthResult.Accepted(username);
        });
    }

    /**
     * Removes the credentials for our realm from a request about to be forwarded: they are spent
     * here and mean nothing to the next hop (RFC 3261 §22.3 lets a proxy consume them).
     */
    public void consumeCredentials(Request request) {
        for (ListIterator<Header> it = request.getHeaders(ProxyAuthorizationHeader.NAME); it.hasNext(); ) {
            Header h = it.next();
            if (h instanceof AuthorizationHeader a && realm.equals(a.getRealm())) {
                it.remove();
            }
        }
    }

    private AuthorizationHeader ourCredentials(Request request, String headerName) {
        for (ListIterator<Header> it = request.getHeaders(headerName); it.hasNext(); ) {
            Header h = it.next();
            if (h instanceof AuthorizationHeader a && "Digest".equalsIgnoreCase(a.getScheme())
                    && realm.equals(a.getRealm())) {
                return a;
            }
        }
        return null;
    }

    /** Whether a header of this name was left unparsed: present but malformed. */
    private static boolean hasUnparsed(Request request, String headerName) {
        String prefix = headerName.toLowerCase(Locale.ROOT) + ":";
        for (ListIterator<String> it = request.getUnrecognizedHeaders(); it.hasNext(); ) {
            String line = it.next().toLowerCase(Locale.ROOT).replaceFirst("^(\\S+)\\s*:", "$1:");
            if (line.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** The identity a request speaks for: the To URI of a REGISTER, the From URI otherwise; null when not a SIP URI. */
    private static SipURI identity(Request request, boolean asRegistrar) {
        URI uri = asRegistrar
                ? ((ToHeader) request.getHeader(ToHeader.NAME)).getAddress().getURI()
                : ((FromHeader) request.getHeader(FromHeader.NAME)).getAddress().getURI();
        return uri instanceof SipURI sip ? sip : null;
    }

    private static AddressFactory uriFactory() {
        try {
            return SipFactory.getInstance().createAddressFactory();
        } catch (PeerUnavailableException e) {
            throw new IllegalStateException("JAIN-SIP's address factory is on the class path", e);
        }
    }

    /**
     * Whether the digest uri names the Request-URI: compared as SIP URIs (RFC 3261 §19.1.4: scheme,
     * user and password case-sensitive, host case-insensitive, parameters by the rules there), or
     * as text for other schemes.
     */
    static boolean sameUri(String digestUri, URI requestUri) {
        if (digestUri.equals(requestUri.toString())) {
            return true;
        }
        try {
            return URIS.createURI(digestUri).equals(requestUri);
        } catch (java.text.ParseException | RuntimeException e) {
            return false;
        }
    }

    private static String shorten(String s) {
        return s.length() > 16 ? s.substring(0, 16) : s;
    }

    private static CompletableFuture<AuthResult> done(AuthResult r) {
        return CompletableFuture.completedFuture(r);
    }
}
