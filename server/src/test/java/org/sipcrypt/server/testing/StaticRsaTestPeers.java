package org.sipcrypt.server.testing;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.sipcrypt.server.tls.JdkInsecureSuites;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteProvider;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;

/**
 * Lets the tests' own SunJSSE peers (the {@code SSLSocket}s and {@code SSLServerSocket}s built by
 * {@link TestPki}, which stand in for legacy SIP peers offering RFC 3261's
 * {@code TLS_RSA_WITH_AES_128_CBC_SHA}) speak static RSA key exchange on a JDK that refuses it
 * ({@code TLS_RSA_*} in {@code jdk.tls.disabledAlgorithms}, as Debian's OpenJDK 17.0.21 has).
 * SunJSSE reads that property once per JVM, so it is lifted before the first test class runs,
 * for the static-RSA suites of the built-in providers only; RC4 and 3DES stay refused. Servers
 * started in the same JVM then find nothing left to lift: the server's own lifting is tested in
 * JVMs of its own ({@code InsecureSuitesIT}). Registered for every test class of the server and
 * the lab by JUnit's extension auto-detection, as {@link ThreadLeakCheck} is.
 * Threading: JUnit calls it on the thread running the test class; the lifting is synchronized.
 */
public final class StaticRsaTestPeers implements BeforeAllCallback {

    @Override
    public void beforeAll(ExtensionContext context) {
        List<String> names = new ArrayList<>();
        for (CipherSuiteProvider p : CipherSuiteRegistry.load().providers()) {
            for (CipherSuiteId s : p.suites()) {
                if (JdkInsecureSuites.staticRsa(s.name()) && s.jsseName() != null) {
                    names.add(s.jsseName());
                }
            }
        }
        JdkInsecureSuites.allowStaticRsa(names);
    }
}
