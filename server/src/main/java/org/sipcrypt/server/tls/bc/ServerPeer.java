package org.sipcrypt.server.tls.bc;

import java.io.IOException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Vector;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.CertificateRequest;
import org.bouncycastle.tls.ClientCertificateType;
import org.bouncycastle.tls.DefaultTlsServer;
import org.bouncycastle.tls.NamedGroup;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.SecurityParameters;
import org.bouncycastle.tls.TlsCredentialedDecryptor;
import org.bouncycastle.tls.TlsCredentialedSigner;
import org.bouncycastle.tls.TlsCredentials;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.TlsSession;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.crypto.TlsECConfig;
import org.bouncycastle.util.Arrays;
import org.sipcrypt.server.tls.RevokedCertificateException;

/**
 * The listener's side of one bc TLS connection: the certificate chosen by the ClientHello's
 * server_name (RFC 6066 §3) among the default and the {@code tls.domain} entries, the configured suites in the server's order of
 * preference (those the key serves), the configured key-exchange groups in the server's order, RSA
 * credentials (key exchange or signature; PSS in TLS 1.3) or ECDSA ones, session IDs granted and
 * resumed from the shared cache when reuse is on (only under the domain that granted them), client
 * certificates asked for (by the chosen domain's policy) and checked against
 * the trust anchors when configured; notes the group of each key exchange for the handshake counter.
 * Renegotiation is refused (Bouncy Castle's default policy).
 * Threading: confined to the connection's event loop.
 */
final class ServerPeer extends DefaultTlsServer {

    final Outcome outcome = new Outcome();
    private final BcTlsSetup setup;
    /** What this connection presents: chosen by the ClientHello's server_name, the default before. */
    private BcTlsSetup.Served served;
    /** Whether the server_name chose a tls.domain, acknowledged in the server's extensions (RFC 6066 §3). */
    private boolean nameUsed;

    ServerPeer(BcTlsSetup setup) {
        super(setup.crypto);
        this.setup = setup;
    }

    @Override
    protected ProtocolVersion[] getSupportedVersions() {
        return setup.versions;
    }

    @Override
    protected int[] getSupportedCipherSuites() {
        try {
            served = setup.served(null);
        } catch (IOException e) {
            // the set was checked whole before it was made current: this is a defect, not bad input
            throw new IllegalStateException("the default certificate cannot be presented", e);
        }
        return served.serverSuites().clone();
    }

    /**
     * Chooses the certificate by the ClientHello's server_name (RFC 6066 §3) and offers the suites its
     * key serves; a name no {@code tls.domain} covers gets the default, or a fatal
     * {@code unrecognized_name} alert with {@code tls.unknownServerName=refuse}.
     */
    @Override
    public void processClientExtensions(java.util.Hashtable clientExtensions) throws IOException {
        super.processClientExtensions(clientExtensions);
        String name = hostName(clientExtensions == null ? null
                : org.bouncycastle.tls.TlsExtensionsUtils.getServerNameExtensionClient(clientExtensions));
        BcTlsSetup.Served chosen = setup.served(name);
        if (chosen == null) {
            throw new TlsFatalAlert(AlertDescription.unrecognized_name, "no tls.domain for server name \""
                    + name + "\" (tls.unknownServerName=refuse)");
        }
        served = chosen;
        nameUsed = name != null && setup.namesDomain(name);
        cipherSuites = chosen.serverSuites().clone();
    }

    /** The host_name entry of a server_name extension, or null. */
    private static String hostName(Vector<?> names) {
        if (names == null) {
            return null;
        }
        for (Object o : names) {
            if (o instanceof org.bouncycastle.tls.ServerName n && n.getNameType() == org.bouncycastle.tls.NameType.host_name) {
                return new String(n.getNameData(), java.nio.charset.StandardCharsets.US_ASCII);
            }
        }
        return null;
    }

    @Override
    public java.util.Hashtable getServerExtensions() throws IOException {
        java.util.Hashtable extensions = super.getServerExtensions();
        if (nameUsed) {
            org.bouncycastle.tls.TlsExtensionsUtils.addServerNameExtensionServer(extensions);
        }
        return extensions;
    }

    @Override
    public int[] getSupportedGroups() throws IOException {
        return setup.groups == null ? super.getSupportedGroups() : setup.groups.clone();
    }

    /** With {@code tls.groups} given, the server's order wins, as it does for suites. */
    @Override
    public boolean preferLocalSupportedGroups() {
        return setup.groups != null;
    }

    /**
     * TLS 1.2 ECDHE with {@code tls.groups} given: the first configured curve the client lists (Bouncy
     * Castle's default takes the client's first, whatever the server supports); else as by default.
     */
    @Override
    protected int selectECDH(int minimumCurveBits) {
        if (setup.groups == null) {
            return super.selectECDH(minimumCurveBits);
        }
        return firstListedByClient(minimumCurveBits, true);
    }

    /** TLS 1.2 DHE with {@code tls.groups} given: the first configured finite field the client lists. */
    @Override
    protected int selectDH(int minimumFiniteFieldBits) {
        if (setup.groups == null) {
            return super.selectDH(minimumFiniteFieldBits);
        }
        return firstListedByClient(minimumFiniteFieldBits, false);
    }

    /**
     * The first of the configured groups, in the server's order, that is a curve ({@code curve}) or a
     * finite field of at least {@code minimumBits}, that this crypto runs and that the client lists
     * (a client that lists none gets the first such group); -1 when there is none.
     */
    private int firstListedByClient(int minimumBits, boolean curve) {
        int[] client = context.getSecurityParametersHandshake().getClientSupportedGroups();
        for (int g : setup.groups) {
            int bits = curve ? NamedGroup.getCurveBits(g) : NamedGroup.getFiniteFieldBits(g);
            if (bits > 0 && bits >= minimumBits && getCrypto().hasNamedGroup(g)
                    && (client == null || Arrays.contains(client, g))) {
                return g;
            }
        }
        return -1;
    }

    /** TLS 1.2 ECDHE: notes the curve chosen, for the handshake counter. */
    @Override
    public TlsECConfig getECDHConfig() throws IOException {
        TlsECConfig config = super.getECDHConfig();
        outcome.group = config.getNamedGroup();
        return config;
    }

    @Override
    protected boolean preferLocalCipherSuites() {
        return true;
    }

    @Override
    public TlsCredentials getCredentials() throws IOException {
        if (TlsUtils.isTLSv13(context)) {
            return Credentials.isEc(served.key()) ? getECDSASignerCredentials() : getRSASignerCredentials();
        }
        return super.getCredentials();
    }

    @Override
    protected TlsCredentialedSigner getECDSASignerCredentials() throws IOException {
        return Credentials.signer(context, setup, served, context.getSecurityParametersHandshake().getClientSigAlgs(), null);
    }

    @Override
    protected TlsCredentialedDecryptor getRSAEncryptionCredentials() throws IOException {
        return Credentials.decryptor(context, setup, served);
    }

    @Override
    protected TlsCredentialedSigner getRSASignerCredentials() throws IOException {
        return Credentials.signer(context, setup, served, context.getSecurityParametersHandshake().getClientSigAlgs(), null);
    }

    @Override
    public byte[] getNewSessionID() {
        if (!setup.grantsSessions()) {
            return null;
        }
        byte[] id = new byte[32];
        context.getCrypto().getSecureRandom().nextBytes(id);
        return id;
    }

    @Override
    public TlsSession getSessionToResume(byte[] sessionID) {
        // after processClientExtensions: served is the identity this ClientHello's server_name chose
        return setup.grantedSession(served.name(), sessionID);
    }

    /**
     * The listener certificate's OCSP response for a client that asked (status_request, RFC 6066 §8;
     * in TLS 1.3 in the certificate's entry, RFC 8446 §4.4.2.1), with {@code tls.ocspStapling}; none
     * when no response is held, which RFC 6066 allows.
     */
    @Override
    public org.bouncycastle.tls.CertificateStatus getCertificateStatus() throws IOException {
        byte[] der = setup.stapled(served.name());
        return der == null ? null : new org.bouncycastle.tls.CertificateStatus(
                org.bouncycastle.tls.CertificateStatusType.ocsp, org.bouncycastle.asn1.ocsp.OCSPResponse.getInstance(der));
    }

    @Override
    public CertificateRequest getCertificateRequest() throws IOException {
        // the policy of the domain the server_name chose, or the listener's
        if (served.clientCertificates() == BcTlsSetup.ClientCertificates.NONE) {
            return null;
        }
        Vector<X500Name> authorities = new Vector<>(setup.authorities());
        Vector<?> schemes = TlsUtils.getDefaultSupportedSignatureAlgorithms(context);
        if (TlsUtils.isTLSv13(context)) {
            return new CertificateRequest(TlsUtils.EMPTY_BYTES, schemes, null, authorities);
        }
        return new CertificateRequest(new short[] {ClientCertificateType.rsa_sign, ClientCertificateType.ecdsa_sign},
                schemes, authorities);
    }

    @Override
    public void notifyClientCertificate(Certificate certificate) throws IOException {
        if (certificate == null || certificate.isEmpty()) {
            if (served.clientCertificates() == BcTlsSetup.ClientCertificates.NEED) {
                throw new TlsFatalAlert(TlsUtils.isTLSv13(context) ? AlertDescription.certificate_required
                        : AlertDescription.handshake_failure, "no client certificate, and one is required");
            }
            return;
        }
        X509Certificate[] chain = Credentials.x509(certificate);
        if (!setup.verifyPeers) {
            outcome.peerChain = chain;
            return;
        }
        try {
            setup.trust.pkix().checkClientTrusted(chain, chain[0].getPublicKey().getAlgorithm());
        } catch (CertificateException e) {
            throw new TlsFatalAlert(e instanceof RevokedCertificateException ? AlertDescription.certificate_revoked
                    : AlertDescription.bad_certificate, "client certificate not trusted: " + e.getMessage(), e);
        }
        outcome.peerChain = chain;
    }

    @Override
    public void notifyHandshakeComplete() throws IOException {
        super.notifyHandshakeComplete();
        outcome.completed(context);
        if (TlsUtils.isTLSv13(context)) {
            outcome.group = tls13Group();
        } else if (outcome.resumed || outcome.group < 0) {
            // a resumed TLS 1.2 session, or RSA key exchange: no group was used
            outcome.group = Outcome.NO_GROUP;
        }
        if (outcome.resumed && outcome.peerChain == null) {
            // a resumed session sends no certificates: the client's is the one its full handshake
            // presented and checked, kept with the session (RFC 5246 §7.3)
            org.bouncycastle.tls.SessionParameters p = context.getSession() == null ? null
                    : context.getSession().exportSessionParameters();
            Certificate kept = p == null ? null : p.getPeerCertificate();
            if (kept != null && !kept.isEmpty()) {
                outcome.peerChain = Credentials.x509(kept);
            }
        }
        if (!outcome.resumed) {
            setup.keepGranted(served.name(), context.getSession());
        }
    }

    /**
     * The group of the TLS 1.3 key share, by the rule Bouncy Castle's server applies
     * ({@code TlsUtils.selectKeyShareGroup}): the first group of the preferred side's list (ours
     * with {@code tls.groups}, else the client's) that the other side lists, TLS 1.3 allows and the
     * crypto runs; the client's share of it is used, or asked for by a HelloRetryRequest.
     */
    private int tls13Group() {
        SecurityParameters sp = context.getSecurityParametersConnection();
        int[] client = sp.getClientSupportedGroups();
        int[] server = sp.getServerSupportedGroups();
        if (client == null || server == null) {
            return Outcome.UNKNOWN_GROUP;
        }
        boolean local = preferLocalSupportedGroups();
        int[] first = local ? server : client;
        int[] second = local ? client : server;
        for (int g : first) {
            if (Arrays.contains(second, g) && NamedGroup.canBeNegotiated(g, sp.getNegotiatedVersion())
                    && BcTlsSetup.runs(context.getCrypto(), g)) {
                return g;
            }
        }
        return Outcome.UNKNOWN_GROUP;
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
