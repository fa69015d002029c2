package org.sipcrypt.server.config;

import org.sipcrypt.server.transport.ConfigNamed;

/**
 * Whether the location service keeps the bindings it read in memory ({@code location.cache}):
 * {@code auto} does with the embedded database, which only this server writes, and does not with a
 * database named by {@code db}, which other servers may share; {@code on} and {@code off} decide it
 * outright.
 * Threading: immutable.
 */
public enum LocationCacheMode implements ConfigNamed {
    AUTO,
    ON,
    OFF;

    /**
     * Parses {@code auto}, {@code on} or {@code off}.
     *
     * @throws IllegalArgumentException naming the value when it is none of them
     */
    public static LocationCacheMode parse(String name) {
        return ConfigNamed.parse(LocationCacheMode.class, name, "location cache mode");
    }
}
