package org.sipcrypt.server.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How the proxy locates SIP servers by DNS (RFC 3263), keys {@code dns.*}: the name servers asked,
 * how long one query may take, and how long an answer is kept at most.
 * Threading: immutable.
 *
 * @param servers     name servers as {@code HOST:PORT}, asked in order; empty: those of the system's
 *                    {@code /etc/resolv.conf}
 * @param timeout     how long one DNS query may take before the next server is asked or it fails
 * @param cacheMaxTtl the longest an answer is kept, whatever its records' TTL; zero keeps none
 */
public record DnsConfig(List<HostPort> servers, Duration timeout, Duration cacheMaxTtl) {

    /** Most name servers that may be listed. */
    public static final int MAX_SERVERS = 8;
    /** The shortest and longest {@code dns.timeout}. */
    public static final Duration MIN_TIMEOUT = Duration.ofMillis(50);
    public static final Duration MAX_TIMEOUT = Duration.ofSeconds(30);
    /** The longest {@code dns.cacheMaxTtl}. */
    public static final Duration MAX_CACHE_TTL = Duration.ofDays(1);

    public DnsConfig {
        servers = List.copyOf(Objects.requireNonNull(servers, "servers"));
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(cacheMaxTtl, "cacheMaxTtl");
        if (servers.size() > MAX_SERVERS) {
            throw new IllegalArgumentException("dns.servers: " + servers.size() + " servers (expected at most "
                    + MAX_SERVERS + ")");
        }
        for (HostPort s : servers) {
            if (s.port() <= 0) {
                throw new IllegalArgumentException("dns.servers: \"" + s + "\" has no port (expected HOST:PORT,"
                        + " e.g. 127.0.0.1:53)");
            }
        }
        if (timeout.compareTo(MIN_TIMEOUT) < 0 || timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException("dns.timeout: " + ConfigValues.format(timeout)
                    + " (expected 50ms to 30s)");
        }
        if (cacheMaxTtl.isNegative() || cacheMaxTtl.compareTo(MAX_CACHE_TTL) > 0) {
            throw new IllegalArgumentException("dns.cacheMaxTtl: " + ConfigValues.format(cacheMaxTtl)
                    + " (expected 0s to 24h)");
        }
    }

    /** The system's name servers, 2 s a query, answers kept up to 5 minutes. */
    public static DnsConfig defaults() {
        return new Builder().build();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().servers(servers).timeout(timeout).cacheMaxTtl(cacheMaxTtl);
    }

    /**
     * Named settings for a {@link DnsConfig}, starting from the defaults; {@link #build} checks them.
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private List<HostPort> servers = List.of();
        private Duration timeout = Duration.ofSeconds(2);
        private Duration cacheMaxTtl = Duration.ofMinutes(5);

        public Builder servers(List<HostPort> v) { servers = v; return this; }
        public Builder timeout(Duration v) { timeout = v; return this; }
        public Builder cacheMaxTtl(Duration v) { cacheMaxTtl = v; return this; }

        public DnsConfig build() {
            return new DnsConfig(servers, timeout, cacheMaxTtl);
        }
    }
}
