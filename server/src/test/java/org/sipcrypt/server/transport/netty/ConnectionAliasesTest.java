package org.sipcrypt.server.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.tls.LabCertificates;
import org.sipcrypt.server.transport.Transport;
import org.sipcrypt.server.transport.netty.ConnectionAliases.Result;

/**
 * Which RFC 5923 alias offers are taken (RFC 5923 §5: TLS only, a certificate checked against the
 * trust anchors that names the sent-by host by RFC 5922's rules), and how sent-bys and targets
 * are keyed so that an alias is found whichever way the target is written.
 */
@Timeout(30)
class ConnectionAliasesTest {

    private static X509Certificate[] namingPeer;
    private static X509Certificate[] commonNameOnly;

    @BeforeAll
    static void certificates() throws Exception {
        LabCertificates ca = LabCertificates.create("alias test CA", LabCertificates.KeyType.ECDSA, 0, Duration.ofDays(1));
        namingPeer = new X509Certificate[] {
            ca.client("proxy-b", List.of("192.0.2.10", "proxy-b.example", "2001:db8::10")).certificate(),
            ca.caCertificate()};
        commonNameOnly = new X509Certificate[] {ca.client("192.0.2.10", List.of()).certificate(), ca.caCertificate()};
    }

    @Test
    void aCheckedCertificateNamingTheSentByIsAccepted() {
        assertEquals(Result.ACCEPTED, ConnectionAliases.check(Transport.TLS, true, namingPeer, "192.0.2.10"));
        assertEquals(Result.ACCEPTED, ConnectionAliases.check(Transport.TLS, true, namingPeer, "Proxy-B.example"));
        assertEquals(Result.ACCEPTED, ConnectionAliases.check(Transport.TLS, true, namingPeer, "[2001:db8:0::10]"));
    }

    @Test
    void anyOtherOfferIsIgnoredWithItsReason() {
        assertEquals(Result.NOT_TLS, ConnectionAliases.check(Transport.TCP, true, namingPeer, "192.0.2.10"));
        assertEquals(Result.NOT_TLS, ConnectionAliases.check(Transport.UDP, true, namingPeer, "192.0.2.10"));
        assertEquals(Result.NO_CERTIFICATE, ConnectionAliases.check(Transport.TLS, true, null, "192.0.2.10"));
        assertEquals(Result.NO_CERTIFICATE,
                ConnectionAliases.check(Transport.TLS, true, new X509Certificate[0], "192.0.2.10"));
        assertEquals(Result.UNVERIFIED, ConnectionAliases.check(Transport.TLS, false, namingPeer, "192.0.2.10"));
        assertEquals(Result.NAME_MISMATCH, ConnectionAliases.check(Transport.TLS, true, namingPeer, "192.0.2.11"));
        assertEquals(Result.NAME_MISMATCH, ConnectionAliases.check(Transport.TLS, true, namingPeer, "proxy-c.example"));
        // RFC 5922 §7.1: an address matches an iPAddress entry only, never the common name
        assertEquals(Result.NAME_MISMATCH, ConnectionAliases.check(Transport.TLS, true, commonNameOnly, "192.0.2.10"));
    }

    @Test
    void tagsAreTheMetricTags() {
        assertEquals("accepted", Result.ACCEPTED.tag());
        assertEquals("no_certificate", Result.NO_CERTIFICATE.tag());
        assertEquals("name_mismatch", Result.NAME_MISMATCH.tag());
        assertEquals("not_tls", Result.NOT_TLS.tag());
        assertEquals("unverified", Result.UNVERIFIED.tag());
    }

    @Test
    void aSentByAndATargetForTheSameAddressHaveOneKey() throws Exception {
        assertEquals("192.0.2.10:5061", ConnectionAliases.key("192.0.2.10", 5061));
        assertEquals(ConnectionAliases.key("192.0.2.10", 5061),
                ConnectionAliases.key(new InetSocketAddress(InetAddress.getByName("192.0.2.10"), 5061)));
        assertEquals("[2001:db8::10]:5061", ConnectionAliases.key("[2001:DB8:0:0::10]", 5061));
        assertEquals(ConnectionAliases.key("[2001:db8::10]", 5061),
                ConnectionAliases.key(new InetSocketAddress(InetAddress.getByName("2001:db8::10"), 5061)));
        assertEquals("proxy-b.example:5061", ConnectionAliases.key("Proxy-B.Example", 5061));
        assertNull(ConnectionAliases.key("192.0.2.10", 0));
        assertNull(ConnectionAliases.key("192.0.2.10", 65536));
        assertNull(ConnectionAliases.key("", 5061));
    }
}
