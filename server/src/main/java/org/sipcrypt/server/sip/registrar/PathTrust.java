package org.sipcrypt.server.sip.registrar;

import java.net.InetAddress;
import java.util.Objects;
import org.sipcrypt.server.config.AuthConfig;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.transport.Transport;

/**
 * Decides whose Path headers (RFC 3327) the registrar stores. A Path makes every later request for
 * the phone go through the hops it names, so only a REGISTER from an authenticated previous hop may
 * set one (RFC 3327 §6.1): one from an address in {@code auth.trustedPeers} or {@code auth.pathPeers},
 * or one that came over TLS while {@code tls.clientAuth} is {@code need} (every TLS client then
 * presented a certificate that checked against {@code tls.trust}). Anyone else's Path is ignored.
 * Threading: immutable.
 */
public final class PathTrust {

    /** Trusts nobody: every Path is ignored. */
    public static final PathTrust NOBODY = new PathTrust(AuthConfig.defaults(), false);

    private final AuthConfig auth;
    private final boolean tlsClientsVerified;

    /**
     * @param auth               holds {@code auth.trustedPeers} and {@code auth.pathPeers}
     * @param tlsClientsVerified whether every TLS client's certificate is checked against the trust
     *                           anchors ({@code tls.clientAuth} need, peers verified)
     */
    public PathTrust(AuthConfig auth, boolean tlsClientsVerified) {
        this.auth = Objects.requireNonNull(auth, "auth");
        this.tlsClientsVerified = tlsClientsVerified;
    }

    /** The trust the server's settings give. */
    public static PathTrust of(AuthConfig auth, TlsConfig tls) {
        return new PathTrust(auth, tls.clientAuth() == TlsConfig.ClientAuth.NEED && tls.trust() != null
                && tls.verifyPeers());
    }

    /**
     * Whether a REGISTER from {@code source} over {@code flow} (null when the transport records none)
     * comes from a previous hop whose Path may be stored.
     */
    public boolean trusts(InetAddress source, Flow flow) {
        if (tlsClientsVerified && flow != null && flow.transport() == Transport.TLS) {
            return true;
        }
        return auth.pathTrusted(source);
    }
}
