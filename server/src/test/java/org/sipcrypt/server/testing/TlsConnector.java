package org.sipcrypt.server.testing;

import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Vector;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.CertificateRequest;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.DefaultTlsClient;
import org.bouncycastle.tls.HashAlgorithm;
import org.bouncycastle.tls.KeyExchangeAlgorithm;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.SecurityParameters;
import org.bouncycastle.tls.SignatureAlgorithm;
import org.bouncycastle.tls.SignatureAndHashAlgorithm;
import org.bouncycastle.tls.TlsAuthentication;
import org.bouncycastle.tls.TlsClientContext;
import org.bouncycastle.tls.TlsClientProtocol;
import org.bouncycastle.tls.TlsCredentials;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.TlsServerCertificate;
import org.bouncycastle.tls.TlsSession;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.crypto.TlsCertificate;
import org.bouncycastle.tls.crypto.TlsCrypto;
import org.bouncycastle.tls.crypto.TlsCryptoParameters;
import org.bouncycastle.tls.crypto.impl.bc.BcDefaultTlsCredentialedSigner;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaDefaultTlsCredentialedSigner;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaTlsCrypto;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaTlsCryptoProvider;
import org.sipcrypt.server.tls.JdkInsecureSuites;
import org.sipcrypt.server.tls.PemFiles;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;

/**
 * Opens TLS 1.2 client connections to the server for {@link TlsCallLoad}: on Bouncy Castle's TLS
 * API in blocking mode ({@code TlsClientProtocol} over the socket's streams, offering exactly the
 * suites asked for, with Bouncy Castle's lightweight crypto or the JCA's) or on the JDK's SunJSSE.
 * The server's certificate must chain to the given CA (the JDK's PKIX trust manager) and name the
 * address dialled (RFC 5922 §7.1 asks for the SIP domain; in the lab the address is the domain).
 * A client certificate is presented when the server asks and one was given (mutual TLS). With
 * resumption on, the first resumable session is offered on every later connection (Bouncy Castle),
 * or left in the shared {@code SSLContext}'s session cache (SunJSSE); with it off, no connection
 * resumes another's session.
 * Threading: thread-safe; {@link #open} blocks for the TCP connect and the handshake.
 */
final class TlsConnector {

    /** Which TLS implementation the client runs on; TCP is the plaintext baseline (no TLS). */
    enum ClientKind { BC, JSSE, TCP }

    /** SIP's name for the transport of a connection of this kind: {@code TLS} or {@code TCP}. */
    static String sipTransport(ClientKind kind) {
        return kind == ClientKind.TCP ? "TCP" : "TLS";
    }

    /** Which crypto the Bouncy Castle client uses: its lightweight API or the JCA providers. */
    enum CryptoKind { BC, JCA }

    private static final int CONNECT_TIMEOUT_MS = 5_000;

    private final ClientKind kind;
    private final List<CipherSuiteId> suites;
    private final InetSocketAddress target;
    private final int handshakeTimeoutMs;
    private final boolean resume;
    private final X509TrustManager trust;
    private final PrivateKey clientKey;
    private final List<X509Certificate> clientChain;
    private final TlsCrypto crypto;
    private final SSLContext jsse;
    private volatile TlsSession sessionToOffer;

    TlsConnector(ClientKind kind, CryptoKind cryptoKind, List<CipherSuiteId> suites, InetSocketAddress target,
                 Path trustPem, Path certPem, Path keyPem, int handshakeTimeoutMs, boolean resume)
            throws IOException, GeneralSecurityException {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.suites = List.copyOf(suites);
        this.target = Objects.requireNonNull(target, "target");
        this.handshakeTimeoutMs = handshakeTimeoutMs;
        this.resume = resume;
        KeyStore trustStore = KeyStore.getInstance("PKCS12");
        trustStore.load(null, null);
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        try (InputStream in = Files.newInputStream(trustPem)) {
            int i = 0;
            for (java.security.cert.Certificate c : cf.generateCertificates(in)) {
                trustStore.setCertificateEntry("ca" + i++, c);
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(trustStore);
        this.trust = x509(tmf.getTrustManagers());
        if ((certPem == null) != (keyPem == null)) {
            throw new IllegalArgumentException("--cert and --key go together");
        }
        this.clientKey = keyPem == null ? null : PemFiles.readPrivateKey(keyPem);
        this.clientChain = certPem == null ? List.of() : PemFiles.readCertificates(certPem);
        if (kind == ClientKind.TCP) {
            this.jsse = null;
            this.crypto = null;
        } else if (kind == ClientKind.JSSE) {
            JdkInsecureSuites.allow();
            KeyManagerFactory kmf = null;
            if (clientKey != null) {
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(null, null);
                ks.setKeyEntry("client", clientKey, new char[0], clientChain.toArray(new X509Certificate[0]));
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, new char[0]);
            }
            this.jsse = SSLContext.getInstance("TLSv1.2");
            this.jsse.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), new SecureRandom());
            this.crypto = null;
            for (CipherSuiteId s : suites) {
                if (s.jsseName() == null) {
                    throw new IllegalArgumentException(s.name() + " has no JSSE name: SunJSSE cannot run it (use --client bc)");
                }
            }
        } else {
            this.jsse = null;
            this.crypto = cryptoKind == CryptoKind.BC ? new BcTlsCrypto(new SecureRandom())
                    : new JcaTlsCryptoProvider().create(new SecureRandom());
            for (CipherSuiteId s : suites) {
                int enc = TlsUtils.getEncryptionAlgorithm(s.code());
                if (enc < 0 || !TlsUtils.isValidVersionForCipherSuite(s.code(), ProtocolVersion.TLSv12)) {
                    throw new IllegalArgumentException(s.name() + ": Bouncy Castle's TLS 1.2 client cannot run it"
                            + (s.jsseName() == null ? "" : " (try --client jsse)"));
                }
                if (!crypto.hasEncryptionAlgorithm(enc)) {
                    throw new IllegalArgumentException(s.name() + ": the " + cryptoKind.name().toLowerCase(Locale.ROOT)
                            + " crypto has no cipher for it" + (cryptoKind == CryptoKind.JCA ? " (try --crypto bc)" : ""));
                }
            }
        }
    }

    /**
     * The suites named, in order: IANA or JSSE names the server's providers know, else any
     * constant of Bouncy Castle's {@code CipherSuite} (with no JSSE name).
     */
    static List<CipherSuiteId> suitesNamed(List<String> names) {
        CipherSuiteRegistry registry = CipherSuiteRegistry.load();
        List<CipherSuiteId> out = new ArrayList<>();
        for (String n : names) {
            CipherSuiteId found = registry.providers().stream().flatMap(p -> p.suites().stream())
                    .filter(s -> s.isNamed(n)).findFirst().orElse(null);
            if (found == null) {
                try {
                    Field f = CipherSuite.class.getField(n.toUpperCase(Locale.ROOT));
                    found = new CipherSuiteId(f.getInt(null), f.getName(), null);
                } catch (NoSuchFieldException | IllegalAccessException e) {
                    throw new IllegalArgumentException("unknown cipher suite \"" + n + "\" (expected an IANA name such as"
                            + " TLS_RSA_WITH_AES_128_CBC_SHA)", e);
                }
            }
            out.add(found);
        }
        return out;
    }

    /** The IANA name of a suite code among those offered, else its hex code. */
    String suiteName(int code) {
        return suites.stream().filter(s -> s.code() == code).map(CipherSuiteId::name).findFirst()
                .orElse(String.format("0x%04X", code));
    }

    /** Opens a connection and completes its handshake. */
    Link open() throws IOException {
        long start = System.nanoTime();
        long startMillis = System.currentTimeMillis();
        if (kind == ClientKind.TCP) {
            Socket s = new Socket();
            try {
                s.connect(target, CONNECT_TIMEOUT_MS);
                s.setTcpNoDelay(true);
                return new Link(s, s.getInputStream(), s.getOutputStream(), null, "none", false, System.nanoTime() - start);
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }
        if (kind == ClientKind.JSSE) {
            SSLSocket s = (SSLSocket) jsse.getSocketFactory().createSocket();
            try {
                s.connect(target, CONNECT_TIMEOUT_MS);
                s.setTcpNoDelay(true);
                s.setSoTimeout(handshakeTimeoutMs);
                s.setEnabledProtocols(new String[] {"TLSv1.2"});
                s.setEnabledCipherSuites(suites.stream().map(CipherSuiteId::jsseName).toArray(String[]::new));
                SSLParameters params = s.getSSLParameters();
                params.setEndpointIdentificationAlgorithm("HTTPS");
                s.setSSLParameters(params);
                s.startHandshake();
                SSLSession session = s.getSession();
                // a resumed session keeps the creation time of the handshake that made it
                boolean resumed = session.getCreationTime() < startMillis;
                if (!resume) {
                    session.invalidate();
                }
                String negotiated = suites.stream().filter(c -> c.isNamed(session.getCipherSuite()))
                        .map(CipherSuiteId::name).findFirst().orElse(session.getCipherSuite());
                return new Link(s, s.getInputStream(), s.getOutputStream(), null, negotiated, resumed,
                        System.nanoTime() - start);
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }
        Socket s = new Socket();
        try {
            s.connect(target, CONNECT_TIMEOUT_MS);
            s.setTcpNoDelay(true);
            s.setSoTimeout(handshakeTimeoutMs);
            TlsClientProtocol protocol = new TlsClientProtocol(s.getInputStream(), s.getOutputStream());
            LoadClient client = new LoadClient(resume ? sessionToOffer : null);
            protocol.connect(client);
            SecurityParameters sp = client.context().getSecurityParametersConnection();
            if (resume && sessionToOffer == null) {
                TlsSession made = client.context().getResumableSession();
                if (made != null) {
                    sessionToOffer = made;
                }
            }
            return new Link(s, protocol.getInputStream(), protocol.getOutputStream(), protocol,
                    suiteName(sp.getCipherSuite()), sp.isResumedSession(), System.nanoTime() - start);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** Whether a session is being offered for resumption (Bouncy Castle client with resumption on). */
    boolean hasSessionToOffer() {
        return sessionToOffer != null;
    }

    /**
     * An open TLS connection: application-data streams and what the handshake settled.
     * Threading: one thread reading and one writing at a time; {@link #close} from any thread.
     */
    static final class Link implements Closeable {
        final Socket socket;
        final InputStream in;
        final OutputStream out;
        final String suite;
        final boolean resumed;
        final long handshakeNanos;
        private final TlsClientProtocol protocol;

        Link(Socket socket, InputStream in, OutputStream out, TlsClientProtocol protocol, String suite, boolean resumed,
             long handshakeNanos) {
            this.socket = socket;
            this.in = in;
            this.out = out;
            this.protocol = protocol;
            this.suite = suite;
            this.resumed = resumed;
            this.handshakeNanos = handshakeNanos;
        }

        /** The address of this end, as written in Via and Contact. */
        String localHostPort() {
            return socket.getLocalAddress().getHostAddress() + ":" + socket.getLocalPort();
        }

        /** Sends close_notify (when the connection is still up) and closes the socket. */
        @Override
        public void close() throws IOException {
            try {
                if (protocol != null && !protocol.isClosed()) {
                    protocol.close();
                }
            } finally {
                socket.close();
            }
        }
    }

    /** The Bouncy Castle client of one connection. */
    private final class LoadClient extends DefaultTlsClient {
        private final TlsSession offer;

        LoadClient(TlsSession offer) {
            super(crypto);
            this.offer = offer;
        }

        TlsClientContext context() {
            return context;
        }

        @Override
        protected ProtocolVersion[] getSupportedVersions() {
            return ProtocolVersion.TLSv12.only();
        }

        @Override
        protected int[] getSupportedCipherSuites() {
            return suites.stream().mapToInt(CipherSuiteId::code).toArray();
        }

        @Override
        public TlsSession getSessionToResume() {
            return offer;
        }

        @Override
        public TlsAuthentication getAuthentication() {
            return new TlsAuthentication() {
                @Override
                public void notifyServerCertificate(TlsServerCertificate serverCertificate) throws IOException {
                    checkServer(serverCertificate.getCertificate(),
                            context.getSecurityParametersHandshake().getCipherSuite());
                }

                @Override
                public TlsCredentials getClientCredentials(CertificateRequest request) throws IOException {
                    return clientKey == null ? null : credentials(context, request);
                }
            };
        }
    }

    private void checkServer(Certificate chain, int cipherSuite) throws IOException {
        if (chain == null || chain.isEmpty()) {
            throw new TlsFatalAlert(AlertDescription.bad_certificate, "the server sent no certificate");
        }
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            X509Certificate[] x509 = new X509Certificate[chain.getLength()];
            for (int i = 0; i < x509.length; i++) {
                x509[i] = (X509Certificate) cf.generateCertificate(
                        new ByteArrayInputStream(chain.getCertificateAt(i).getEncoded()));
            }
            trust.checkServerTrusted(x509, authType(cipherSuite));
            checkNamesTarget(x509[0]);
        } catch (CertificateException e) {
            throw new TlsFatalAlert(AlertDescription.bad_certificate, "server certificate refused: " + e.getMessage(), e);
        }
    }

    /** The key-exchange name the JDK's trust manager expects for a suite. */
    private static String authType(int cipherSuite) {
        return switch (TlsUtils.getKeyExchangeAlgorithm(cipherSuite)) {
            case KeyExchangeAlgorithm.RSA -> "RSA";
            case KeyExchangeAlgorithm.ECDHE_RSA -> "ECDHE_RSA";
            case KeyExchangeAlgorithm.ECDHE_ECDSA -> "ECDHE_ECDSA";
            case KeyExchangeAlgorithm.DHE_RSA -> "DHE_RSA";
            default -> "UNKNOWN";
        };
    }

    /** The certificate must carry the address dialled as an IP-address or DNS subjectAltName. */
    private void checkNamesTarget(X509Certificate cert) throws CertificateException {
        InetAddress address = target.getAddress();
        String host = target.getHostString();
        if (cert.getSubjectAlternativeNames() != null) {
            for (List<?> san : cert.getSubjectAlternativeNames()) {
                int type = (Integer) san.get(0);
                String value = String.valueOf(san.get(1));
                try {
                    if (type == 7 && address != null && InetAddress.getByName(value).equals(address)) {
                        return;
                    }
                } catch (UnknownHostException e) {
                    throw new CertificateException("bad IP subjectAltName " + value, e);
                }
                if (type == 2 && value.equalsIgnoreCase(host)) {
                    return;
                }
            }
        }
        throw new CertificateException("the certificate does not name " + host);
    }

    private TlsCredentials credentials(TlsClientContext context, CertificateRequest request) throws IOException {
        short wanted = "EC".equals(clientKey.getAlgorithm()) ? SignatureAlgorithm.ecdsa : SignatureAlgorithm.rsa;
        SignatureAndHashAlgorithm chosen = null;
        Vector<?> offered = request.getSupportedSignatureAlgorithms();
        for (Object o : offered == null ? List.of() : offered) {
            SignatureAndHashAlgorithm a = (SignatureAndHashAlgorithm) o;
            short h = a.getHash();
            if (chosen == null && a.getSignature() == wanted && (h == HashAlgorithm.sha256 || h == HashAlgorithm.sha384
                    || h == HashAlgorithm.sha512 || h == HashAlgorithm.sha1)) {
                chosen = a;
            }
        }
        if (chosen == null) {
            throw new TlsFatalAlert(AlertDescription.handshake_failure,
                    "no signature algorithm the server accepts fits the client key");
        }
        TlsCertificate[] certs = new TlsCertificate[clientChain.size()];
        try {
            for (int i = 0; i < certs.length; i++) {
                certs[i] = crypto.createCertificate(clientChain.get(i).getEncoded());
            }
        } catch (CertificateEncodingException e) {
            throw new IOException("client certificate: " + e.getMessage(), e);
        }
        Certificate chain = new Certificate(certs);
        TlsCryptoParameters params = new TlsCryptoParameters(context);
        if (crypto instanceof JcaTlsCrypto jca) {
            return new JcaDefaultTlsCredentialedSigner(params, jca, clientKey, chain, chosen);
        }
        return new BcDefaultTlsCredentialedSigner(params, (BcTlsCrypto) crypto,
                PrivateKeyFactory.createKey(clientKey.getEncoded()), chain, chosen);
    }

    private static X509TrustManager x509(TrustManager[] managers) {
        for (TrustManager m : managers) {
            if (m instanceof X509TrustManager x) {
                return x;
            }
        }
        throw new IllegalStateException("the PKIX TrustManagerFactory made no X509TrustManager");
    }

}
