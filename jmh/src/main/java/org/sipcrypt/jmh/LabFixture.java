package org.sipcrypt.jmh;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.ReferenceCountedOpenSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.tls.JdkInsecureSuites;
import org.sipcrypt.server.tls.KeyMaterial;
import org.sipcrypt.server.tls.PemFiles;
import org.sipcrypt.server.tls.TlsChoices;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.tls.spi.CipherEngine;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteProvider;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.tls.spi.TlsEngine;
import picocli.CommandLine;

/**
 * The base of the TLS benchmarks' states: lab certificates made with the server's {@code certs} command
 * (once per run by {@link BenchmarkMain}, which hands the directory to every forked JVM in the
 * system property {@value #CERTS_PROPERTY}; otherwise once per JVM in a temporary directory), the
 * server's cipher-suite registry, and TLS settings for both engines built the way the server builds
 * them: {@link BcTlsSetup} for {@code bc}, an {@link SSLContext} of the JDK's SunJSSE from the same
 * PEM files for {@code jsse}. Only TLS 1.2 is offered: every suite measured here is a TLS 1.2 suite.
 *
 * <p>Loading this class takes RC4 and 3DES out of the JDK's {@code jdk.tls.disabledAlgorithms} for
 * the whole JVM, as the server does under {@code tls.allowInsecure}, and the entries refusing the
 * static-RSA suites measured ({@code TLS_RSA_*} on Debian's OpenJDK 17.0.21), as the server's jsse
 * engine does for configured ones; the JDK reads that property once,
 * at its first TLS use, so this happens in a static initialiser. Benchmark JVMs only.
 * Threading: static members thread-safe; instances are JMH thread-scoped states.
 */
public abstract class LabFixture extends BenchmarkDefaults {

    /** The system property naming a directory that already holds the lab certificates. */
    public static final String CERTS_PROPERTY = "sipcrypt.jmh.certs";

    /** The address clients "dial": the lab server certificate names 127.0.0.1, so the RFC 5922 check passes. */
    static final InetSocketAddress SERVER = new InetSocketAddress("127.0.0.1", 5061);

    static final CipherSuiteRegistry REGISTRY = CipherSuiteRegistry.load();

    private static final char[] NO_PASSWORD = new char[0];
    private static Path certificates;

    static {
        JdkInsecureSuites.allow();
        JdkInsecureSuites.allowStaticRsaSuites(REGISTRY.providers().stream().flatMap(p -> p.suites().stream()).toList());
    }

    /**
     * Whose certificate and key a side presents: the server's, none (a plain client), or the
     * client certificate.
     * Threading: immutable.
     */
    enum Role {
        SERVER("server.pem", "server-key.pem"),
        CLIENT(null, null),
        CLIENT_WITH_CERTIFICATE("client.pem", "client-key.pem");

        final String cert;
        final String key;

        Role(String cert, String key) {
            this.cert = cert;
            this.key = key;
        }
    }

    /** Writes {@code ca.pem}, {@code server.pem}, {@code client.pem} and their keys (RSA-2048) into {@code dir}. */
    public static void makeCertificates(Path dir) {
        PrintWriter quiet = new PrintWriter(Writer.nullWriter());
        StringWriter err = new StringWriter();
        int exit = new CommandLine(new CertsCommand()).setOut(quiet).setErr(new PrintWriter(err, true))
                .execute("--out", dir.toString(), "--force");
        if (exit != 0) {
            throw new IllegalStateException("certs --out " + dir + " failed (exit " + exit + "): " + err.toString().trim());
        }
    }

    /** The directory of the lab certificates, made on first use unless {@value #CERTS_PROPERTY} names one. */
    static synchronized Path certificates() {
        if (certificates == null) {
            String given = System.getProperty(CERTS_PROPERTY);
            if (given != null && Files.isRegularFile(Path.of(given, "ca.pem"))) {
                certificates = Path.of(given);
            } else {
                try {
                    Path dir = Files.createTempDirectory("sipcrypt-jmh-certs");
                    makeCertificates(dir);
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir), "sipcrypt-jmh-cleanup"));
                    certificates = dir;
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot make a directory for the lab certificates", e);
                }
            }
        }
        return certificates;
    }

    /** Removes a directory and what it holds; used for the certificates made here. */
    public static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + dir, e);
        }
    }

    /**
     * The suite measured for a provider: its first RSA key-exchange suite, a TLS 1.2 RSA CBC suite
     * for every built-in provider (RC4: its stream suite), whatever order the provider prefers.
     */
    static CipherSuiteId measuredSuite(String providerName) {
        CipherSuiteProvider provider = REGISTRY.provider(providerName).orElseThrow(() -> new IllegalArgumentException(
                "no cipher-suite provider \"" + providerName + "\" on the class path"));
        CipherSuiteId suite = provider.rsaKeyExchangeSuite();
        if (TlsChoices.isTls13(suite.name())) {
            throw new IllegalStateException(providerName + "'s RSA suite " + suite + " is not a TLS 1.2 suite");
        }
        return suite;
    }

    /** The suite of that IANA name. */
    static CipherSuiteId suite(String name) {
        return REGISTRY.resolve(List.of(name), true).get(0);
    }

    /**
     * A bc engine setup for one side, resolved through the server's {@link TlsChoices} (which refuses
     * a provider on an engine that cannot run it).
     *
     * @param crypto        the bulk cipher's crypto engine; null for the provider's default
     * @param clientCerts   what a server asks of clients
     * @param sessionReuse  whether sessions are granted, kept and offered
     */
    static BcTlsSetup bcSetup(CipherSuiteId suite, CipherEngine crypto, Role role,
                              BcTlsSetup.ClientCertificates clientCerts, boolean sessionReuse) throws IOException {
        // PROVIDER:ENGINE, which the server refuses for a provider without that engine (a bare
        // "jca" would quietly fall back to bc for Camellia and SEED)
        String provider = REGISTRY.providerOf(suite).orElseThrow().name();
        TlsChoices choices = TlsChoices.resolve(REGISTRY, List.of(suite.name()), true, TlsEngine.BC,
                crypto == null ? List.of() : List.of(provider + ":" + crypto.configName()), List.of("1.2"));
        if (crypto != null && choices.cryptoOf(REGISTRY.providerOf(suite).orElseThrow()) != crypto) {
            throw new IllegalStateException(suite + ": the server chose " + choices.crypto() + ", not " + crypto);
        }
        Path dir = certificates();
        return BcTlsSetup.create(role.cert == null ? null
                : KeyMaterial.read(dir.resolve(role.cert), dir.resolve(role.key), null), dir.resolve("ca.pem"), choices, REGISTRY,
                clientCerts, sessionReuse, 1000, Duration.ofHours(1), true);
    }

    /** Checks, with the server's own rules, that the openssl engine runs {@code suite}. */
    static void checkOpenssl(CipherSuiteId suite) {
        TlsChoices.resolve(REGISTRY, List.of(suite.name()), true, TlsEngine.OPENSSL, List.of(), List.of("1.2"));
    }

    /**
     * A context of Netty's OpenSslEngine on BoringSSL for the role, as the server's openssl engine
     * makes it: the role's certificate and key (if any), the lab CA trusted. Reference-counted:
     * the caller releases it.
     */
    static ReferenceCountedOpenSslContext opensslContext(Role role) throws IOException {
        return opensslContext(role, ClientAuth.NONE);
    }

    /** As {@link #opensslContext(Role)}, a server asking clients for certificates as {@code clientAuth} says. */
    static ReferenceCountedOpenSslContext opensslContext(Role role, ClientAuth clientAuth) throws IOException {
        Path dir = certificates();
        X509Certificate[] anchors = PemFiles.readCertificates(dir.resolve("ca.pem")).toArray(new X509Certificate[0]);
        SslContextBuilder b;
        if (role.cert == null) {
            b = SslContextBuilder.forClient();
        } else {
            KeyMaterial identity = KeyMaterial.read(dir.resolve(role.cert), dir.resolve(role.key), null);
            b = role == Role.SERVER ? SslContextBuilder.forServer(identity.key(), identity.chainArray())
                    : SslContextBuilder.forClient().keyManager(identity.key(), identity.chainArray());
        }
        return (ReferenceCountedOpenSslContext) b.sslProvider(SslProvider.OPENSSL_REFCNT).trustManager(anchors)
                .clientAuth(clientAuth).build();
    }

    /** Checks, with the server's own rules, that the jsse engine runs {@code suite}. */
    static void checkJsse(CipherSuiteId suite) {
        TlsChoices.resolve(REGISTRY, List.of(suite.name()), true, TlsEngine.JSSE, List.of(), List.of("1.2"));
    }

    /** A SunJSSE context holding the role's certificate and key (if any) and trusting the lab CA. */
    static SSLContext jsseContext(Role role) throws IOException {
        Path dir = certificates();
        try {
            KeyManagerFactory kmf = null;
            if (role.cert != null) {
                List<X509Certificate> chain = PemFiles.readCertificates(dir.resolve(role.cert));
                PrivateKey key = PemFiles.readPrivateKey(dir.resolve(role.key));
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(null, null);
                ks.setKeyEntry("lab", key, NO_PASSWORD, chain.toArray(new X509Certificate[0]));
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, NO_PASSWORD);
            }
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            List<X509Certificate> anchors = PemFiles.readCertificates(dir.resolve("ca.pem"));
            for (int i = 0; i < anchors.size(); i++) {
                trust.setCertificateEntry("ca-" + i, anchors.get(i));
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ctx = SSLContext.getInstance("TLS", "SunJSSE");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot build a SunJSSE context for " + role + ": " + e.getMessage(), e);
        }
    }

}
