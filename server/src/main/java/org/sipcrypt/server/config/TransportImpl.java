package org.sipcrypt.server.config;

import org.sipcrypt.server.transport.ConfigNamed;

/**
 * Which transport implementation carries SIP under the JAIN-SIP stack: sipcrypt's Netty transport
 * (the default), or one of JAIN-SIP's own built-in transports (its NIO one, or the blocking-socket
 * one that is the stack's default), kept selectable so they can be measured side by side with the
 * same application.
 * Threading: immutable.
 */
public enum TransportImpl implements ConfigNamed {
    NETTY,
    JAIN_NIO,
    JAIN_OIO;



    /**
     * Parses {@code netty}, {@code jain-nio} or {@code jain-oio}.
     *
     * @throws IllegalArgumentException naming the value when it is neither
     */
    public static TransportImpl parse(String name) {
        return ConfigNamed.parse(TransportImpl.class, name, "transport implementation");
    }
}
