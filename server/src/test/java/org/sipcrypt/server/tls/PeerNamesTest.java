package org.sipcrypt.server.tls;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
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
        assertMatches(server("127.0.0.1,::1,sip.example.org"),
                List.of("127.0.0.1", "[::1]", "0:0:0:0:0:0:0:1"),
                List.of("127.0.0.2"));
    }

    @Test
    void domainsMatchDnsNamesExactlyWithoutWildcards() throws Exception {
        assertMatches(server("sip.example.org,*.example.net"),
                List.of("sip.example.org", "SIP.Example.ORG"),
                List.of("example.org", "a.example.net" /* RFC 5922: no wildcard matching */, "127.0.0.1"));
    }

    private static void assertMatches(X509Certificate c, List<String> matching, List<String> notMatching) {
        for (String name : matching) {
            assertTrue(PeerNames.matches(c, name), name + " should match");
        }
        for (String name : notMatching) {
            assertFalse(PeerNames.matches(c, name), name + " should not match");
        }
    }
}
