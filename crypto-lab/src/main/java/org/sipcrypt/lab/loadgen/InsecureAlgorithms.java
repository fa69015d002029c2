package org.sipcrypt.lab.loadgen;

import java.security.Security;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes RC4 and 3DES out of the JDK's {@code jdk.tls.disabledAlgorithms} in this JVM, so SunJSSE
 * offers them (lab only: only when the lab's insecure switch is given). SunJSSE reads the property
 * once, at its first TLS use, so this runs before any.
 * Threading: call once from the thread that sets the generator up.
 */
public final class InsecureAlgorithms {

    private static final Logger log = LoggerFactory.getLogger(InsecureAlgorithms.class);
    private static final String DISABLED = "jdk.tls.disabledAlgorithms";

    private InsecureAlgorithms() {
    }

    /** Removes the entries naming RC4 or 3DES (DESede) from the property; logs a WARN once. */
    public static synchronized void reenable() {
        String value = Security.getProperty(DISABLED);
        if (value == null) {
            return;
        }
        List<String> kept = new ArrayList<>();
        for (String entry : value.split(",")) {
            String e = entry.trim().toUpperCase(Locale.ROOT);
            if (!e.startsWith("RC4") && !e.startsWith("3DES") && !e.startsWith("DESEDE")) {
                kept.add(entry.trim());
            }
        }
        String now = String.join(", ", kept);
        if (!now.equals(value)) {
            Security.setProperty(DISABLED, now);
            log.warn("RC4 and 3DES re-enabled in {} for this generator JVM (lab only)", DISABLED);
        }
    }
}
