package org.sipcrypt.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.config.TlsConfig;
import org.sipcrypt.server.config.TlsDomainConfig;

@Timeout(60)
class ServerIdentitiesTest {

    @TempDir
    static Path dir;
    private static LabCertificates ca;

    @BeforeAll
    static void certificates() throws Exception {
        ca = LabCertificates.create("identities test CA", LabCertificates.KeyType.ECDSA, 2048, Duration.ofDays(1));
        for (String name : List.of("default.test", "a.example.com", "wild.example.org", "other.test")) {
            LabCertificates.Issued issued = ca.server(List.of(name));
            PemFiles.writeCertificates(dir.resolve(name + ".pem"), List.of(issued.certificate()));
            PemFiles.writePrivateKey(dir.resolve(name + ".key"), issued.keys().getPrivate());
        }
    }

    private static TlsConfig config(TlsConfig.UnknownServerName unknown, TlsDomainConfig... domains) {
        return new TlsConfig.Builder().cert(dir.resolve("default.test.pem")).key(dir.resolve("default.test.key"))
                .domains(List.of(domains)).unknownServerName(unknown).build();
    }

    private static TlsDomainConfig domain(String name, String files) {
        return new TlsDomainConfig(name, dir.resolve(files + ".pem"), dir.resolve(files + ".key"));
    }

    @Test
    void exactNameThenWildcardThenDefault() throws IOException {
        ServerIdentities ids = ServerIdentities.read(config(TlsConfig.UnknownServerName.DEFAULT,
                domain("a.example.com", "a.example.com"), domain("*.example.org", "wild.example.org")), Instant.now());
        assertEquals("a.example.com", ids.select("A.Example.COM.").name());
        assertEquals("*.example.org", ids.select("sip.example.org").name());
        assertEquals(ServerIdentities.DEFAULT_NAME, ids.select("example.org").name(), "the wildcard covers one label");
        assertEquals(ServerIdentities.DEFAULT_NAME, ids.select("a.b.example.org").name(), "and only one");
        assertEquals(ServerIdentities.DEFAULT_NAME, ids.select("unknown.test").name());
        assertSame(ids.fallback(), ids.select(null));
        assertEquals(3, ids.all().size());
    }

    @Test
    void unknownNameIsRefusedWhenConfiguredButNoNameStillGetsTheDefault() throws IOException {
        ServerIdentities ids = ServerIdentities.read(config(TlsConfig.UnknownServerName.REFUSE,
                domain("a.example.com", "a.example.com")), Instant.now());
        assertNull(ids.select("unknown.test"));
        assertEquals(ServerIdentities.DEFAULT_NAME, ids.select(null).name());
        assertEquals("a.example.com", ids.select("a.example.com").name());
    }

    @Test
    void keyOfAnotherCertificateIsRefusedNamingTheDomain() {
        TlsDomainConfig mismatched = new TlsDomainConfig("a.example.com", dir.resolve("a.example.com.pem"),
                dir.resolve("other.test.key"));
        IOException e = assertThrows(IOException.class, () -> ServerIdentities.read(
                config(TlsConfig.UnknownServerName.DEFAULT, mismatched), Instant.now()));
        assertTrue(e.getMessage().contains("tls.domain a.example.com") && e.getMessage().contains("key is not"),
                e.getMessage());
    }

    @Test
    void certificateNotValidAtTheInstantIsRefused() {
        IOException expired = assertThrows(IOException.class, () -> ServerIdentities.read(
                config(TlsConfig.UnknownServerName.DEFAULT), Instant.now().plus(Duration.ofDays(2))));
        assertTrue(expired.getMessage().contains("expired"), expired.getMessage());
        IOException early = assertThrows(IOException.class, () -> ServerIdentities.read(
                config(TlsConfig.UnknownServerName.DEFAULT), Instant.now().minus(Duration.ofDays(1))));
        assertTrue(early.getMessage().contains("not valid before"), early.getMessage());
    }

    @Test
    void keyManagerKeepsChainAndKeyOfOneSetAcrossAReplacement() throws IOException {
        ServerIdentities first = readWithDomainA("a.example.com");
        CurrentIdentities current = new CurrentIdentities(first);
        ServerNameKeyManager keys = current.keyManager();
        String alias = keys.chooseEngineServerAlias("EC", null, null);
        current.replace(readWithDomainA("other.test"));
        assertEquals(first.fallback().leaf(), keys.getCertificateChain(alias)[0],
                "a handshake under way finishes with the set it chose from");
        assertEquals(first.fallback().material().key(), keys.getPrivateKey(alias));
        assertNull(keys.chooseEngineServerAlias("RSA", null, null), "an EC key serves no RSA key type");
        assertNull(keys.getCertificateChain("0" + alias.substring(alias.indexOf(':'))), "an alias no set has");
    }

    @Test
    void anAliasNamesContentSoUnchangedFilesKeepItAndAChangedFileRetiresIt() throws IOException {
        ServerIdentities first = readWithDomainA("a.example.com");
        CurrentIdentities current = new CurrentIdentities(first);
        ServerNameKeyManager keys = current.keyManager();
        String alias = keys.chooseEngineServerAlias("EC", null, null);
        current.replace(readWithDomainA("a.example.com"));
        assertEquals(alias, keys.chooseEngineServerAlias("EC", null, null), "the same files read again");
        TlsConfig changed = new TlsConfig.Builder().cert(dir.resolve("other.test.pem"))
                .key(dir.resolve("other.test.key")).build();
        current.replace(ServerIdentities.read(changed, Instant.now()));
        String next = keys.chooseEngineServerAlias("EC", null, null);
        assertTrue(!next.equals(alias), next);
        assertEquals(first.fallback().leaf(), keys.getCertificateChain(alias)[0], "the replaced set is still in use");
        current.replace(ServerIdentities.read(changed, Instant.now()));
        assertNull(keys.getCertificateChain(alias), "a chain no set in use has");
        assertNull(keys.getPrivateKey(alias));
    }

    /** The default certificate and domain {@code a.example.com} served with the certificate named {@code cert}. */
    private static ServerIdentities readWithDomainA(String cert) throws IOException {
        return ServerIdentities.read(config(TlsConfig.UnknownServerName.DEFAULT, domain("a.example.com", cert)),
                Instant.now());
    }
}
