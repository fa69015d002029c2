package org.sipcrypt.server.config;

import org.sipcrypt.server.transport.ConfigNamed;

/**
 * What the server does with requests for users it knows: forward them (stateful proxy,
 * RFC 3261 §16) or answer with their contacts (redirect server, RFC 3261 §8.3).
 * Threading: immutable.
 */
public enum Mode implements ConfigNamed {
    PROXY,
    REDIRECT;


    /**
     * Parses {@code proxy} or {@code redirect}.
     *
     * @throws IllegalArgumentException naming the value when it is neither
     */
    public static Mode parse(String name) {
        return ConfigNamed.parse(Mode.class, name, "mode");
    }
}
