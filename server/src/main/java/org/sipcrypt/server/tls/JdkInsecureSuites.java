package org.sipcrypt.server.tls;

import java.security.Security;
import java.util.ArrayList;
import java.util.List;

/**
 * The JDK's own refusal of RC4 and 3DES: both are listed in the security property
 * {@code jdk.tls.disabledAlgorithms}, which SunJSSE reads once per JVM, when its TLS classes first
 * load. Lifting it is for the lab only (the server's {@code tls.allowInsecure}, the benchmarks and
 * the test peers) and works only before the JVM's first TLS use.
 * Threading: thread-safe (static, synchronized).
 */
public final class JdkInsecureSuites {

    private static final String DISABLED = "jdk.tls.disabledAlgorithms";

    private JdkInsecureSuites() {
    }

    /** Takes RC4 and 3DES out of {@code jdk.tls.disabledAlgorithms} for this JVM; idempotent. */
    public static synchronized void allow() {
        String before = Security.getProperty(DISABLED);
        if (before == null) {
            return;
        }
        List<String> kept = new ArrayList<>();
        for (String entry : before.split(",")) {
            String e = entry.trim();
            if (!e.isEmpty() && !e.equals("RC4") && !e.equals("3DES_EDE_CBC")) {
                kept.add(e);
            }
        }
        Security.setProperty(DISABLED, String.join(", ", kept));
    }
}
