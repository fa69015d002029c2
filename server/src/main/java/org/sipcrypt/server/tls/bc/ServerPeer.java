package org.sipcrypt.server.tls.bc;

import java.io.IOException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Hashtable;
import java.util.Map;
import java.util.Vector;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.CertificateRequest;
import org.bouncycastle.tls.ClientCertificateType;
import org.bouncycastle.tls.DefaultTlsServer;
import org.bouncycastle.tls.ExtensionType;
import org.bouncycastle.tls.NamedGroup;
import org.bouncycastle.tls.NewSessionTicket;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.SecurityParameters;
import org.bouncycastle.tls.SessionParameters;
import org.bouncycastle.tls.TlsCredentialedDecryptor;
import org.bouncycastle.tls.TlsCredentialedSigner;
import org.bouncycastle.tls.TlsCredentials;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.TlsSession;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.crypto.TlsCrypto;
import org.bouncycastle.tls.crypto.TlsECConfig;
import org.bouncycastle.util.Arrays;
import org.sipcrypt.server.tls.RevokedCertificateException;

/**
 * The listener's side of one bc TLS connection: the certificate chosen by the ClientHello's
 * server_name (RFC 6066 §3) among the default and the {@code tls.domain} entries, the configured suites in the server's order of
 * preference (those the key serves), the configured key-exchange groups in the server's order, RSA
 * credentials (key exchange or signature; PSS in TLS 1.3) or ECDSA ones, session IDs granted and
 * resumed from the shared cache and TLS 1.2 session tickets (RFC 5077) issued to clients that ask
 * and resumed when reuse is on (either only under the domain that granted it), client
 * certificates asked for (by the chosen domain's policy) and checked against
 * the trust anchors when configured; notes the group of each key exchange for the handshake counter.
 * Renegotiation is refused (Bouncy Castle's default policy).
 * Threading: confined to the connection's event loop.
 */
final class ServerPeer extends DefaultTlsServer {

    /** The SessionTicket extension's type (RFC 5077 §3.2). */
    private static final Integer SESSION_TICKET = ExtensionType.session_ticket;

    final Outcome outcome = new Outcome();
    private final BcTlsSetup setup;
    /** What this connection presents: chosen by the ClientHello's server_name, the default before. */
    private BcTlsSetup.Served served;
    /** Whether the server_name chose a tls.domain, acknowledged in the server's extensions (RFC 6066 §3). */
    private boolean nameUsed;
    /**
     * The ClientHello's SessionTicket extension (RFC 5077 §3.2): null when absent or with reuse off,
     * empty when the client asks for a ticket, else the ticket it offers.
     */
    private byte[] offeredTicket;
    /** The server's extensions of this handshake, as they go into a ticket. */
    private Hashtable<?, ?> serverExtensions;

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
        offeredTicket = setup.tickets == null || clientExtensions == null ? null
                : (byte[]) clientExtensions.get(SESSION_TICKET);
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

    /**
     * The session a TLS 1.2 ClientHello resumes: the one its ticket carries (RFC 5077 §3.4), else
     * the one its session ID names, in either case only if granted under the identity this
     * ClientHello's server_name chose (processClientExtensions ran before) and if its suite is
     * still one this identity serves and the client offers (Bouncy Castle fails the handshake
     * rather than starting a full one when it is not). Bouncy Castle resumes only a session with
     * an ID: a client sending its ticket with an empty session ID gets a full handshake.
     */
    @Override
    public TlsSession getSessionToResume(byte[] sessionID) {
        TlsSession session = null;
        if (offeredTicket != null && offeredTicket.length > 0 && sessionID != null && sessionID.length > 0) {
            SessionTickets.State state = setup.tickets.open(served.name(), offeredTicket);
            session = state == null ? null : TlsUtils.importSession(sessionID, parameters(state));
        }
        if (session == null) {
            session = setup.grantedSession(served.name(), sessionID);
        }
        SessionParameters p = session == null ? null : session.exportSessionParameters();
        return p != null && Arrays.contains(served.serverSuites(), p.getCipherSuite())
                && Arrays.contains(offeredCipherSuites, p.getCipherSuite()) ? session : null;
    }

    /** Bouncy Castle's form of a ticket's session. */
    private SessionParameters parameters(SessionTickets.State state) {
        TlsCrypto crypto = context.getCrypto();
        Certificate peer = Certificate.EMPTY_CHAIN;
        if (state.peerChain().length > 0) {
            org.bouncycastle.tls.crypto.TlsCertificate[] chain =
                    new org.bouncycastle.tls.crypto.TlsCertificate[state.peerChain().length];
            try {
                for (int i = 0; i < chain.length; i++) {
                    chain[i] = crypto.createCertificate(state.peerChain()[i]);
                }
            } catch (IOException e) {
                // DER this server checked and sealed itself: not bad input
                throw new IllegalStateException("a sealed client certificate does not parse", e);
            }
            peer = new Certificate(chain);
        }
        Hashtable<Integer, byte[]> extensions = new Hashtable<>(state.serverExtensions());
        try {
            return new SessionParameters.Builder()
                    .setCipherSuite(state.cipherSuite())
                    .setNegotiatedVersion(ProtocolVersion.get(state.version() >> 8, state.version() & 0xFF))
                    .setExtendedMasterSecret(state.extendedMasterSecret())
                    .setMasterSecret(crypto.createSecret(state.masterSecret()))
                    .setPeerCertificate(peer)
                    .setServerExtensions(extensions)
                    .build();
        } catch (IOException e) {
            throw new IllegalStateException("sealed server extensions do not encode", e);
        }
    }

    /**
     * On a full TLS 1.2 handshake whose ClientHello carried the SessionTicket extension, answers it
     * (RFC 5077 §3.2), so that a NewSessionTicket follows. On a resumed one, drops what the
     * session's full handshake answered and this one will not send (Bouncy Castle replays the
     * session's extensions): the SessionTicket extension (no NewSessionTicket on resumption, RFC
     * 5077 §3.4) and status_request (no CertificateStatus, RFC 6066 §8).
     */
    @Override
    @SuppressWarnings({"rawtypes", "unchecked"}) // Bouncy Castle's signature: extension type to data
    public void getServerExtensionsForConnection(java.util.Hashtable extensions) throws IOException {
        super.getServerExtensionsForConnection(extensions);
        if (context.getSecurityParametersHandshake().isResumedSession()) {
            extensions.remove(SESSION_TICKET);
            extensions.remove(org.bouncycastle.tls.TlsExtensionsUtils.EXT_status_request);
            extensions.remove(org.bouncycastle.tls.TlsExtensionsUtils.EXT_status_request_v2);
        } else if (offeredTicket != null && !TlsUtils.isTLSv13(context)) {
            extensions.put(SESSION_TICKET, TlsUtils.EMPTY_BYTES);
        }
        serverExtensions = extensions;
    }

    /**
     * The ticket of the TLS 1.2 session just made (RFC 5077 §3.3), sent after the client's
     * Finished: its state sealed under the listener's ticket key.
     */
    @Override
    public NewSessionTicket getNewSessionTicket() throws IOException {
        SecurityParameters sp = context.getSecurityParametersHandshake();
        TlsCrypto crypto = context.getCrypto();
        byte[] master = crypto.adoptSecret(sp.getMasterSecret()).extract();
        Certificate peer = sp.getPeerCertificate();
        byte[][] chain = new byte[peer == null ? 0 : peer.getLength()][];
        for (int i = 0; i < chain.length; i++) {
            chain[i] = peer.getCertificateAt(i).getEncoded();
        }
        Map<Integer, byte[]> extensions = new Hashtable<>();
        for (Map.Entry<?, ?> e : serverExtensions.entrySet()) {
            extensions.put((Integer) e.getKey(), (byte[]) e.getValue());
        }
        extensions.remove(SESSION_TICKET);
        byte[] ticket = setup.tickets.seal(served.name(), new SessionTickets.State(sp.getCipherSuite(),
                sp.getNegotiatedVersion().getFullVersion(), sp.isExtendedMasterSecret(), master, chain, extensions));
        java.util.Arrays.fill(master, (byte) 0);
        return new NewSessionTicket(setup.tickets.lifetimeHintSeconds(), ticket);
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
