package org.sipcrypt.server.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.bouncycastle.asn1.ocsp.OCSPObjectIdentifiers;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.cert.ocsp.BasicOCSPResp;
import org.bouncycastle.cert.ocsp.BasicOCSPRespBuilder;
import org.bouncycastle.cert.ocsp.CertificateStatus;
import org.bouncycastle.cert.ocsp.OCSPReq;
import org.bouncycastle.cert.ocsp.OCSPRespBuilder;
import org.bouncycastle.cert.ocsp.Req;
import org.bouncycastle.cert.ocsp.RespID;
import org.bouncycastle.cert.ocsp.RevokedStatus;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;

/**
 * An OCSP responder a test runs (RFC 6960 Appendix A over the JDK's {@code HttpServer} on 127.0.0.1):
 * answers POSTed requests with responses Bouncy Castle builds and signs with the key given, good
 * unless the serial is {@link #revoke revoked}; the validity window and signer can be changed to make
 * bad responses. {@link #respond} builds a response without the server, for unit tests.
 * Threading: thread-safe; the settings are volatile, the server runs on one thread of its own.
 */
public final class TestOcspResponder implements AutoCloseable {

    private final HttpServer server;
    private final Set<BigInteger> revoked = ConcurrentHashMap.newKeySet();
    private final AtomicInteger requests = new AtomicInteger();
    private final java.util.concurrent.ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "test-ocsp-responder");
        t.setDaemon(true);
        return t;
    });
    private volatile X509Certificate signer;
    private volatile PrivateKey key;
    private volatile X509Certificate[] included = new X509Certificate[0];
    /** nextUpdate from now; null: none. */
    private volatile Duration nextUpdate = Duration.ofHours(1);
    private volatile Duration thisUpdateAge = Duration.ofMinutes(1);

    private TestOcspResponder(HttpServer server, X509Certificate signer, PrivateKey key) {
        this.server = server;
        this.signer = signer;
        this.key = key;
    }

    /** A responder on 127.0.0.1 with a free port, signing as {@code signer} (the issuer itself, or a delegate). */
    public static TestOcspResponder start(X509Certificate signer, PrivateKey key) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        TestOcspResponder r = new TestOcspResponder(s, signer, key);
        s.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody(); OutputStream out = exchange.getResponseBody()) {
                r.requests.incrementAndGet();
                byte[] answer = r.respond(in.readAllBytes());
                exchange.getResponseHeaders().add("Content-Type", "application/ocsp-response");
                exchange.sendResponseHeaders(200, answer.length);
                out.write(answer);
            } catch (Exception e) {
                exchange.sendResponseHeaders(500, -1);
            }
        });
        s.setExecutor(r.executor);
        s.start();
        return r;
    }

    /** The responder's URL. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/ocsp");
    }

    /** Answers {@code cert} as revoked from now on. */
    public void revoke(X509Certificate cert) {
        revoked.add(cert.getSerialNumber());
    }

    /** Answers {@code cert} as good again. */
    public void reinstate(X509Certificate cert) {
        revoked.remove(cert.getSerialNumber());
    }

    /** Signs with this certificate and key from now on, and sends {@code included} with the response. */
    public void signAs(X509Certificate signer, PrivateKey key, X509Certificate... included) {
        this.signer = signer;
        this.key = key;
        this.included = included.clone();
    }

    /** Responses' nextUpdate from now (negative: already passed; null: none) and thisUpdate's age. */
    public void window(Duration nextUpdate, Duration thisUpdateAge) {
        this.nextUpdate = nextUpdate;
        this.thisUpdateAge = thisUpdateAge;
    }

    /** Requests answered so far. */
    public int requests() {
        return requests.get();
    }

    /** The DER response to the DER request {@code request}, by the current settings. */
    public byte[] respond(byte[] request) throws Exception {
        OCSPReq req = new OCSPReq(request);
        X509CertificateHolder signerHolder = new JcaX509CertificateHolder(signer);
        BasicOCSPRespBuilder b = new BasicOCSPRespBuilder(new RespID(signerHolder.getSubjectPublicKeyInfo(),
                new JcaDigestCalculatorProviderBuilder().build().get(RespID.HASH_SHA1)));
        Instant now = Instant.now();
        Date thisUpdate = Date.from(now.minus(thisUpdateAge));
        Date next = nextUpdate == null ? null : Date.from(now.plus(nextUpdate));
        for (Req r : req.getRequestList()) {
            BigInteger serial = r.getCertID().getSerialNumber();
            CertificateStatus status = revoked.contains(serial)
                    ? new RevokedStatus(Date.from(now.minus(Duration.ofMinutes(10))), CRLReason.keyCompromise)
                    : CertificateStatus.GOOD;
            b.addResponse(r.getCertID(), status, thisUpdate, next, null);
        }
        Extension nonce = req.getExtension(OCSPObjectIdentifiers.id_pkix_ocsp_nonce);
        if (nonce != null) {
            b.setResponseExtensions(new Extensions(nonce));
        }
        X509CertificateHolder[] chain = new X509CertificateHolder[included.length];
        for (int i = 0; i < chain.length; i++) {
            chain[i] = new JcaX509CertificateHolder(included[i]);
        }
        BasicOCSPResp basic = b.build(new JcaContentSignerBuilder("SHA256withRSA").build(key), chain, new Date());
        return new OCSPRespBuilder().build(OCSPRespBuilder.SUCCESSFUL, basic).getEncoded();
    }

    /** Stops answering: connections to its port are refused from now on. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
