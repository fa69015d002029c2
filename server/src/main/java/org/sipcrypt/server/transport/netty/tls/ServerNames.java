package org.sipcrypt.server.transport.netty.tls;

import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIMatcher;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.StandardConstants;
import org.sipcrypt.server.tls.CurrentIdentities;

/**
 * {@code tls.unknownServerName=refuse} on the jsse and openssl engines: a server-name matcher on each
 * accepted connection's engine that accepts exactly the names some {@code tls.domain} covers, so
 * that the engine answers any other name with a fatal {@code unrecognized_name} alert (RFC 6066 §3).
 * A ClientHello without server_name is not matched and gets the default certificate.
 * Threading: stateless; called on event loops.
 */
final class ServerNames {

    private ServerNames() {
    }

    /** Sets the matcher on {@code engine} when the current set refuses unknown names. */
    static void refuseUnknown(SSLEngine engine, CurrentIdentities identities) {
        if (!identities.current().refusesUnknown()) {
            return;
        }
        SSLParameters p = engine.getSSLParameters();
        p.setSNIMatchers(List.of(new DomainMatcher(identities)));
        engine.setSSLParameters(p);
    }

    /**
     * Whether the handshake of a connection's TLS stage was refused for its server_name, for
     * {@code tls.handshakes.failed{reason=unrecognized_name}}: the engines report it in their own
     * words (SunJSSE: {@code Unrecognized server name indication}; BoringSSL: {@code CLIENTHELLO_TLSEXT}).
     */
    static boolean refused(Object tlsHandler) {
        java.util.Collection<SNIMatcher> matchers = tlsHandler instanceof io.netty.handler.ssl.SslHandler ssl
                ? ssl.engine().getSSLParameters().getSNIMatchers() : null;
        if (matchers != null) {
            for (SNIMatcher m : matchers) {
                if (m instanceof DomainMatcher d && d.refused) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Matches the names some {@code tls.domain} covers; notes a refusal. One per engine.
     * Threading: confined to the connection's event loop.
     */
    private static final class DomainMatcher extends SNIMatcher {

        private final CurrentIdentities identities;
        private volatile boolean refused;

        DomainMatcher(CurrentIdentities identities) {
            super(StandardConstants.SNI_HOST_NAME);
            this.identities = identities;
        }

        @Override
        public boolean matches(SNIServerName name) {
            String host;
            try {
                host = name instanceof SNIHostName h ? h.getAsciiName() : new SNIHostName(name.getEncoded()).getAsciiName();
            } catch (IllegalArgumentException e) {
                // not a valid host name: no domain covers it
                host = null;
            }
            boolean known = host != null && identities.current().select(host) != null;
            refused |= !known;
            return known;
        }
    }
}
