package org.sipcrypt.server.config;

import org.sipcrypt.server.transport.ConfigNamed;

/**
 * How a destination set orders its live destinations for one request ({@code destinations.algorithm}):
 * {@code priority}, the lowest priority value first and a weighted random order among destinations of
 * one priority (Kamailio's dispatcher algorithms 8 and 9 together); {@code hash-callid}, the same
 * destination for every request of one Call-ID; {@code hash-from}, the same destination for every request
 * from one From URI (Kamailio's algorithms 0 and 1). A hashed order starts at the destination the hash
 * picks among all of the set's destinations in the order configured, and goes on round the list from
 * there, so a destination going down moves only the calls it had.
 * Threading: immutable.
 */
public enum DestinationAlgorithm implements ConfigNamed {
    PRIORITY,
    HASH_CALLID,
    HASH_FROM;

    /**
     * Parses {@code priority}, {@code hash-callid} or {@code hash-from}.
     *
     * @throws IllegalArgumentException naming the value when it is none of them
     */
    public static DestinationAlgorithm parse(String name) {
        return ConfigNamed.parse(DestinationAlgorithm.class, name, "destination algorithm");
    }
}
