package org.sipcrypt.server.tls.bc;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Vector;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.CertificateRequest;
import org.bouncycastle.tls.DefaultTlsClient;
import org.bouncycastle.tls.KeyExchangeAlgorithm;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsAuthentication;
import org.bouncycastle.tls.TlsCredentials;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.TlsServerCertificate;
import org.bouncycastle.tls.TlsSession;
import org.bouncycastle.tls.TlsUtils;
import org.sipcrypt.server.tls.PeerNames;
import org.sipcrypt.server.tls.RevokedCertificateException;

/**
 * The proxy's side of one outgoing bc TLS connection: offers the configured suites and key-exchange
 * groups (its TLS 1.3 key share for the first group listed) and, with reuse
 * on, the session last obtained from the same peer; checks the server's chain against the trust
 * anchors and its names against the address dialled (RFC 5922); presents the configured
 * certificate when the server asks for one.
 * Threading: confined to the connection's event loop.
 */
final class ClientPeer extends DefaultTlsClient {

    final Outcome outcome = new Outcome();
    private final BcTlsSetup setup;
    private final InetSocketAddress dialled;

    ClientPeer(BcTlsSetup setup, InetSocketAddress dialled) {
        super(setup.crypto);
        this.setup = setup;
        this.dialled = dialled;
    }

    @Override
    protected ProtocolVersion[] getSupportedVersions() {
        return setup.versions;
    }

    @Override
    protected int[] getSupportedCipherSuites() {
        return setup.suites.clone();
    }

    @Override
    protected Vector getSupportedGroups(Vector namedGroupRoles) {
        if (setup.groups == null) {
            return super.getSupportedGroups(namedGroupRoles);
        }
        Vector<Integer> out = new Vector<>();
        for (int g : setup.groups) {
            out.add(g);
        }
        return out;
    }

    /** TLS 1.3: one key share, for the first group of {@code tls.groups} (BC's choice without it). */
    @Override
    public Vector getEarlyKeyShareGroups() {
        if (setup.groups == null) {
            return super.getEarlyKeyShareGroups();
        }
        Vector<Integer> out = new Vector<>();
        out.add(setup.groups[0]);
        return out;
    }

    @Override
    public TlsSession getSessionToResume() {
        return setup.obtainedSession(dialled);
    }

    @Override
    public TlsAuthentication getAuthentication() {
        return new TlsAuthentication() {
            @Override
            public void notifyServerCertificate(TlsServerCertificate serverCertificate) throws IOException {
                X509Certificate[] chain = Credentials.x509(serverCertificate.getCertificate());
                if (chain.length == 0) {
                    throw new TlsFatalAlert(AlertDescription.bad_certificate, "server sent no certificate");
                }
                outcome.peerChain = chain;
                if (!setup.verifyPeers) {
                    return;
                }
                try {
                    setup.trust.pkix().checkServerTrusted(chain, authType());
                } catch (CertificateException e) {
                    throw new TlsFatalAlert(e instanceof RevokedCertificateException ? AlertDescription.certificate_revoked
                            : AlertDescription.bad_certificate, "server certificate not trusted: " + e.getMessage(), e);
                }
                String host = dialled.getHostString();
                if (!PeerNames.matches(chain[0], host)) {
                    throw new TlsFatalAlert(AlertDescription.bad_certificate, "server certificate does not name " + host);
                }
            }

            @Override
            public TlsCredentials getClientCredentials(CertificateRequest request) throws IOException {
                BcTlsSetup.Served own = setup.clientIdentity();
                if (own == null) {
                    return null;
                }
                return Credentials.signer(context, setup, own, request.getSupportedSignatureAlgorithms(),
                        request.getCertificateRequestContext());
            }
        };
    }

    /** The JDK trust manager's name for the key exchange, as SunJSSE passes it. */
    private String authType() {
        if (TlsUtils.isTLSv13(context)) {
            return "UNKNOWN";
        }
        return switch (context.getSecurityParametersHandshake().getKeyExchangeAlgorithm()) {
            case KeyExchangeAlgorithm.RSA -> "RSA";
            case KeyExchangeAlgorithm.ECDHE_RSA -> "ECDHE_RSA";
            case KeyExchangeAlgorithm.ECDHE_ECDSA -> "ECDHE_ECDSA";
            default -> "UNKNOWN";
        };
    }

    @Override
    public void notifyHandshakeComplete() throws IOException {
        super.notifyHandshakeComplete();
        outcome.completed(context);
        setup.keepObtained(dialled, context.getSession());
    }

    @Override
    public void notifyAlertRaised(short level, short description, String message, Throwable cause) {
        outcome.raised(description, message, cause);
    }

    @Override
    public void notifyAlertReceived(short level, short description) {
        outcome.received(description);
    }
}
