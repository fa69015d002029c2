package org.sipcrypt.lab.runner;

import java.util.Locale;

/**
 * Which server the lab starts for each point: sipcrypt (its own server JVM) or Kamailio (Debian's
 * package, see {@link KamailioServer}), so that one comparison measures both on the same loopback
 * ports, pinning and generator.
 * Threading: immutable.
 */
public enum ServerUnderTest {
    SIPCRYPT, KAMAILIO;

    /** {@code sipcrypt} or {@code kamailio}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The server named, case-insensitive. */
    public static ServerUnderTest parse(String text) {
        for (ServerUnderTest s : values()) {
            if (s.configName().equalsIgnoreCase(text.trim())) {
                return s;
            }
        }
        throw new IllegalArgumentException("--sut: \"" + text + "\" (expected sipcrypt or kamailio)");
    }
}
