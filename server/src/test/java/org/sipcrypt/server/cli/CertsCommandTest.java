package org.sipcrypt.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.testing.OpenSslClient;
import org.sipcrypt.server.testing.TestPki;
import picocli.CommandLine;

/**
 * {@code certs}: the files are checked by programs nobody here wrote: {@code openssl verify} and a
 * mutual-TLS handshake between two JDK (SunJSSE) sockets on loopback that check the server's name.
 */
@Timeout(60)
class CertsCommandTest {

    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private int certs(String... args) {
        CommandLine cl = new CommandLine(new CertsCommand());
        cl.setOut(new PrintWriter(new StringWriter(), true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    private static String openssl(Path workDir, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p = OpenSslClient.start(workDir, cmd);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "openssl did not finish");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rsa", "ecdsa"})
    void filesVerifyWithOpensslAndCarryTheNames(String keyType) throws Exception {
        Path out = dir.resolve(keyType);
        assertEquals(0, certs("--out", out.toString(), "--key-type", keyType, "--san", "127.0.0.1,localhost,::1"),
                err.toString());
        for (String f : CertsCommand.FILES) {
            assertTrue(Files.isRegularFile(out.resolve(f)), f);
        }
        String verify = openssl(out, "verify", "-CAfile", "ca.pem", "server.pem", "client.pem");
        assertTrue(verify.contains("server.pem: OK") && verify.contains("client.pem: OK"), verify);
        String ext = openssl(out, "x509", "-in", "server.pem", "-noout", "-ext", "subjectAltName");
        assertTrue(ext.contains("IP Address:127.0.0.1") && ext.contains("DNS:localhost")
                && ext.contains("IP Address:0:0:0:0:0:0:0:1"), ext);
        String key = openssl(out, "pkey", "-in", "server-key.pem", "-noout", "-text");
        assertTrue(keyType.equals("rsa") ? key.contains("2048 bit") : key.contains("prime256v1"), key);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(out.resolve("server-key.pem"))));
    }

    /** A mutual-TLS handshake and one byte each way; the client checks the server's name as given. */
    private static void handshake(Path out, String serverNameAsDialled) throws Exception {
        SSLContext server = TestPki.sslContext(out, "server.pem", "server-key.pem");
        SSLContext client = TestPki.sslContext(out, "client.pem", "client-key.pem");
        try (SSLServerSocket ss = (SSLServerSocket) server.getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            ss.setNeedClientAuth(true);
            CompletableFuture<String> peer = CompletableFuture.supplyAsync(() -> {
                try (SSLSocket s = (SSLSocket) ss.accept()) {
                    s.setSoTimeout(10_000);
                    InputStream in = s.getInputStream();
                    int b = in.read();
                    s.getOutputStream().write(b + 1);
                    s.getOutputStream().flush();
                    return s.getSession().getPeerPrincipal().getName();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            try (java.net.Socket plain = new java.net.Socket()) {
                plain.connect(new InetSocketAddress("127.0.0.1", ss.getLocalPort()), 5_000);
                plain.setSoTimeout(10_000);
                // layered over the connected socket with the name as dialled: the JDK checks that name
                // against the certificate (an IP literal against iPAddress entries, RFC 2818 / RFC 5922)
                SSLSocket named = (SSLSocket) client.getSocketFactory()
                        .createSocket(plain, serverNameAsDialled, ss.getLocalPort(), true);
                SSLParameters p = named.getSSLParameters();
                p.setEndpointIdentificationAlgorithm("HTTPS");
                named.setSSLParameters(p);
                OutputStream o = named.getOutputStream();
                o.write(41);
                o.flush();
                assertEquals(42, named.getInputStream().read());
                named.close();
                assertEquals("CN=sipcrypt-client", peer.get(10, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void jdkPeersCompleteAMutualHandshakeCheckingTheServerIpAndName() throws Exception {
        assertEquals(0, certs("--out", dir.toString()));
        handshake(dir, "127.0.0.1");
        handshake(dir, "localhost");
    }

    @Test
    void aNameNotInTheCertificateIsRefusedByTheJdkClient() throws Exception {
        assertEquals(0, certs("--out", dir.toString(), "--san", "example.org"));
        assertThrows(SSLHandshakeException.class, () -> handshake(dir, "127.0.0.1"));
    }

    @Test
    void existingFilesAreKeptUnlessForced() {
        assertEquals(0, certs("--out", dir.toString()));
        assertEquals(2, certs("--out", dir.toString()));
        assertTrue(err.toString().contains("exists"), err.toString());
        assertEquals(0, certs("--out", dir.toString(), "--force"));
    }

    @Test
    void badArgumentsExitWithTwo() {
        assertEquals(2, certs("--out", dir.toString(), "--key-type", "dsa"));
        assertEquals(2, certs("--out", dir.toString(), "--rsa-bits", "1024"));
        assertEquals(2, certs("--out", dir.resolve("x").toString(), "--san", "not a name!"));
    }
}
