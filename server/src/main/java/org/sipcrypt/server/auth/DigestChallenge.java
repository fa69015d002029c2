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

    /**
     * The same challenge as {@link #headers}, as header lines of text (each ending in CRLF), for a
     * response built from a request's raw bytes: the fields in the order and form the stack encodes
     * them.
     */
    public static String lines(DigestAuthenticator auth, boolean asRegistrar, String clientAddress, boolean stale) {
        String nonce = auth.nonces().create(clientAddress);
        String name = asRegistrar ? WWWAuthenticateHeader.NAME : javax.sip.header.ProxyAuthenticateHeader.NAME;
        StringBuilder sb = new StringBuilder(160 * auth.algorithms().size());
        for (var algorithm : auth.algorithms()) {
            sb.append(name).append(": Digest realm=").append(quoted(auth.realm()))
                    .append(",nonce=\"").append(nonce).append("\",algorithm=").append(algorithm.token())
                    .append(",qop=\"auth\"");
            if (stale) {
                sb.append(",stale=true");
            }
            sb.append("\r\n");
        }
        return sb.toString();
    }

    /** A quoted-string (RFC 3261 §25.1): quotes and backslashes escaped. */
    private static String quoted(String text) {
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
