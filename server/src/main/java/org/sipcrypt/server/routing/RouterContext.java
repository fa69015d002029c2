package org.sipcrypt.server.routing;

import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * What a router may use: the server's database pool (the one holding the location service's tables,
 * HikariCP; its connections block, which is allowed on the router thread {@link CallRouter#route} runs
 * on, or on an executor of the router's own), the
 * {@code routing.option} settings ({@code key=value}, keys lower case, e.g. {@code lcr.strip=00}), and the
 * server's clock (tests move it by hand).
 * Threading: immutable.
 *
 * @param dataSource the server's database pool
 * @param options    every {@code routing.option}, by key
 * @param clock      the clock the server's SIP layer reads
 */
public record RouterContext(DataSource dataSource, Map<String, String> options, Clock clock) {

    public RouterContext {
        Objects.requireNonNull(dataSource, "dataSource");
        options = Map.copyOf(Objects.requireNonNull(options, "options"));
        Objects.requireNonNull(clock, "clock");
    }

    /** The option {@code key}, if given. */
    public Optional<String> option(String key) {
        return Optional.ofNullable(options.get(key));
    }

    /**
     * The option {@code key}, which the router cannot work without.
     *
     * @throws IllegalArgumentException naming the option when it was not given
     */
    public String requiredOption(String key) {
        String v = options.get(key);
        if (v == null) {
            throw new IllegalArgumentException("routing.option: " + key + "=... is required");
        }
        return v;
    }
}
