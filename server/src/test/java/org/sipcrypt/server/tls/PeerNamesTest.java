package org.sipcrypt.server.tls;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.cert.X509Certificate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.cli.CertsCommand;
import picocli.CommandLine;

class PeerNamesTest {

    @TempDir
    Path dir;

    private X509Certificate server(String sans) throws Exception {
        Path out = dir.resolve(sans.replace(',', '_'));
        new CommandLine(new CertsCommand()).execute("--out", out.toString(), "--san", sans);
        return PemFiles.readCertificates(out.resolve("server.pem")).get(0);
    }

    @Test
    void ipLiteralsMatchIpAddressEntriesOnly() throws Exception {
        X509Certificate c = server("127.0.0.1,::1,sip.example.org");
        assertTrue(PeerNames.matches(c, "127.0.0.1"));
        assertTrue(PeerNames.matches(c, "[::1]"));
        assertTrue(PeerNames.matches(c, "0:0:0:0:0:0:0:1"));
        assertFalse(PeerNames.matches(c, "127.0.0.2"));
    }

    @Test
    void domainsMatchDnsNamesExactlyWithoutWildcards() throws Exception {
        X509Certificate c = server("sip.example.org,*.example.net");
        assertTrue(PeerNames.matches(c, "sip.example.org"));
        assertTrue(PeerNames.matches(c, "SIP.Example.ORG"));
        assertFalse(PeerNames.matches(c, "example.org"));
        assertFalse(PeerNames.matches(c, "a.example.net"), "RFC 5922: no wildcard matching");
        assertFalse(PeerNames.matches(c, "127.0.0.1"));
    }
}
