package org.sipcrypt.server.auth;

import java.text.ParseException;
import javax.sip.header.Header;
import javax.sip.header.HeaderFactory;
import javax.sip.header.WWWAuthenticateHeader;

/**
 * Builds the challenges of a 401 (WWW-Authenticate) or 407 (Proxy-Authenticate): one per offered
 * algorithm, most preferred first (RFC 8760 §2.4), all with the same fresh nonce and
 * {@code qop="auth"}, and {@code stale=true} when the client only needs a new nonce (RFC 7616 §3.3).
 * Threading: immutable (static methods only).
 */
public final class DigestChallenge {

    private DigestChallenge() {
    }

    /**
     * The challenge headers.
     *
     * @param asRegistrar   WWW-Authenticate when true, Proxy-Authenticate otherwise
     * @param clientAddress the IP address the nonce is for
     */
    public static Header[] headers(HeaderFactory factory, DigestAuthenticator auth, boolean asRegistrar,
                                   String clientAddress, boolean stale) throws ParseException {
        String nonce = auth.nonces().create(clientAddress);
        Header[] out = new Header[auth.algorithms().size()];
        for (int i = 0; i < out.length; i++) {
            WWWAuthenticateHeader h = asRegistrar
                    ? factory.createWWWAuthenticateHeader("Digest")
                    : factory.createProxyAuthenticateHeader("Digest");
            h.setRealm(auth.realm());
            h.setNonce(nonce);
            h.setAlgorithm(auth.algorithms().get(i).token());
            h.setQop("auth");
            if (stale) {
                h.setStale(true);
            }
            out[i] = h;
        }
        return out;
    }
}
