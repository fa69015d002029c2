package org.sipcrypt.server.config;

import java.util.Locale;

/**
 * Which transport implementation carries SIP under the JAIN-SIP stack: sipcrypt's Netty transport
 * (the default) or JAIN-SIP's own built-in NIO transport, kept selectable so the two can be
 * measured side by side with the same application.
 * Threading: immutable.
 */
public enum TransportImpl {
    NETTY("netty"),
    JAIN_NIO("jain-nio");

    private final String configName;

    TransportImpl(String configName) {
        this.configName = configName;
    }

    /** The name used in configuration and reports. */
    public String configName() {
        return configName;
    }

    /**
     * Parses {@code netty} or {@code jain-nio}.
     *
     * @throws IllegalArgumentException naming the value when it is neither
     */
    public static TransportImpl parse(String name) {
        for (TransportImpl t : values()) {
            if (t.configName.equals(name.toLowerCase(Locale.ROOT))) {
                return t;
            }
        }
        throw new IllegalArgumentException(
                "unknown transport implementation \"" + name + "\" (expected netty or jain-nio)");
    }
}
