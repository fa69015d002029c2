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
        p.setSNIMatchers(List.of(new SNIMatcher(StandardConstants.SNI_HOST_NAME) {
            @Override
            public boolean matches(SNIServerName name) {
                String host;
                try {
                    host = name instanceof SNIHostName h ? h.getAsciiName() : new SNIHostName(name.getEncoded()).getAsciiName();
                } catch (IllegalArgumentException e) {
                    // not a valid host name: no domain covers it
                    return false;
                }
                return identities.current().select(host) != null;
            }
        }));
        engine.setSSLParameters(p);
    }
}
