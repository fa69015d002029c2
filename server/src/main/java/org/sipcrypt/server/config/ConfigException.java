package org.sipcrypt.server.config;

/**
 * Bad configuration, found while reading the configuration file or the command line. The message
 * always names the key (with the index for list items), the value and what was expected, e.g.
 * {@code listen[1]: unknown transport "sctp" (expected udp, tcp, tls, ws or wss)}, so the command-line entry
 * point can print it as it is and exit with code 2.
 * Threading: immutable.
 */
public class ConfigException extends Exception {

    /** @param message names the key, the value and what was expected */
    public ConfigException(String message) {
        super(message);
    }

    /**
     * @param message names the key, the value and what was expected
     * @param cause   the parse or I/O failure behind it
     */
    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
