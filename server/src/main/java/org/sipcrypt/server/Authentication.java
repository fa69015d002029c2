package org.sipcrypt.server;

import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import org.sipcrypt.server.auth.CredentialBatcher;
import org.sipcrypt.server.auth.DialogRouteSigner;
import org.sipcrypt.server.auth.DigestAuthenticator;
import org.sipcrypt.server.auth.FlowTokens;
import org.sipcrypt.server.auth.NonceService;
import org.sipcrypt.server.auth.ReplayGuard;
import org.sipcrypt.server.config.AuthConfig;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.location.Database;
import org.sipcrypt.server.location.SubscriberStore;
import org.sipcrypt.server.sip.AccessPolicy;
import org.sipcrypt.server.sip.LocalDomains;
import org.sipcrypt.server.sip.SipContext;
import org.sipcrypt.server.sip.proxy.EstablishedDialogs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The digest authentication of one server (RFC 3261 §22), as the SIP functions use it: who is
 * challenged, the authenticator with its nonces and replay guard, the signer of this proxy's
 * Record-Route, and the batched credential lookups (the one part with threads, closed by the
 * server). All null with {@code auth} off.
 * Threading: immutable; made once during start.
 *
 * @param authenticator checks credentials; null with auth off
 * @param policy        decides which requests are challenged; null with auth off
 * @param routeSigner   signs and checks this proxy's Record-Route; null with auth off
 * @param credentials   the credential lookups on threads {@code sipcrypt-auth-N}; null with auth off
 * @param flowTokens    signs and reads the flow tokens of this proxy's Record-Route (RFC 5626 §5.3),
 *                      with auth on or off, keyed by the same server secret
 */
record Authentication(DigestAuthenticator authenticator, AccessPolicy policy, DialogRouteSigner routeSigner,
                      CredentialBatcher credentials, FlowTokens flowTokens) {

    private static final Logger log = LoggerFactory.getLogger(Authentication.class);

    /** Authentication as configured; the caller closes {@link #credentials} when not null. */
    static Authentication start(ServerConfig config, Database database, SipContext context, LocalDomains local,
                                EstablishedDialogs dialogs, MeterRegistry registry) {
        AuthConfig a = config.auth();
        byte[] secret = nonceSecret(a);
        FlowTokens flowTokens = new FlowTokens(secret);
        if (!a.enabled()) {
            return new Authentication(null, null, null, null, flowTokens);
        }
        DialogRouteSigner routeSigner = new DialogRouteSigner(secret);
        AccessPolicy policy = new AccessPolicy(a, routeSigner, local, dialogs);
        CredentialBatcher credentials = new CredentialBatcher(new SubscriberStore(database.dataSource()),
                config.effectiveRealm(), config.dbPoolSize(), a.batchSize(), a.batchWait(), a.queueCapacity(),
                a.cacheSize(), a.cacheTtl(), registry, database.breaker());
        DigestAuthenticator authenticator;
        try {
            authenticator = new DigestAuthenticator(a, config.effectiveRealm(),
                    new NonceService(secret, context.clock(), a.nonceLifetime(), a.nonceBindsAddress()),
                    new ReplayGuard(a.replayNonces(), a.nonceLifetime(), context.clock()), credentials, registry,
                    local::isLocalDomain);
        } catch (RuntimeException e) {
            credentials.close();
            throw e;
        }
        log.info("digest authentication on: realm \"{}\", methods {}, algorithms {}, lookups in batches of"
                        + " up to {} within {} on {} threads", config.effectiveRealm(), a.methods(), a.algorithms(),
                a.batchSize(), a.batchWait(), config.dbPoolSize());
        warnWhereWeakened(config);
        return new Authentication(authenticator, policy, routeSigner, credentials, flowTokens);
    }

    /** One WARN per setting that lets some request through without credentials or weakens them. */
    private static void warnWhereWeakened(ServerConfig config) {
        AuthConfig a = config.auth();
        if (a.methodsNarrowed()) {
            log.warn("auth.methods narrowed to {}: other methods reach local users without credentials"
                    + " (requests leaving our domain are still challenged)", a.methods());
        }
        if (a.legacyNoQop()) {
            log.warn("auth.legacyNoQop on (lab only, for old SIPp clients): credentials without qop carry no"
                    + " nonce count, so captured ones can be replayed for the nonce lifetime ({})",
                    a.nonceLifetime());
        }
        if (a.labSkipUriCheck()) {
            log.warn("auth.lab.skipUriCheck on (lab only): the digest uri is not compared with the Request-URI,"
                    + " so credentials captured for one target work for another");
        }
        if (a.inDialog()) {
            log.info("auth.inDialog on: requests inside dialogs are challenged too");
        } else if (!config.recordRoute() || config.overload().maxDialogs() == 0) {
            log.warn("recordRoute off or shutdown.maxDialogs 0 with auth on: in-dialog requests cannot prove their"
                    + " dialog and are challenged");
        }
        if (!a.trustedPeers().isEmpty()) {
            log.info("auth.trustedPeers {}: their requests are never challenged", a.trustedPeers());
        }
        if (!a.pathPeers().isEmpty()) {
            log.info("auth.pathPeers {}: the Path of their REGISTERs is stored (RFC 3327)", a.pathPeers());
        }
    }

    /** The configured nonce secret, or a random one when none is set. */
    private static byte[] nonceSecret(AuthConfig auth) {
        if (!auth.nonceSecret().isEmpty()) {
            return auth.nonceSecret().getBytes(StandardCharsets.UTF_8);
        }
        if (auth.enabled()) {
            log.info("auth.nonceSecret not set: using a random one, so nonces do not outlive this process"
                    + " and other servers do not accept them");
        }
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        return secret;
    }
}
