package org.sipcrypt.server.tls;

import java.security.cert.CertificateException;

/**
 * A peer's certificate that its issuer revoked: the engines answer it with a {@code certificate_revoked}
 * alert where they can and count it as {@code tls.handshakes.failed{reason=revoked}}.
 * Threading: immutable.
 */
public final class RevokedCertificateException extends CertificateException {

    private static final long serialVersionUID = 1L;

    RevokedCertificateException(String message, Throwable cause) {
        super(message, cause);
    }

    /** A peer can present revoked certificates at handshake rate: no stack trace is filled in. */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
