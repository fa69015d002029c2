package org.sipcrypt.server.transport;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The settings of the {@code ws} and {@code wss} listeners (RFC 7118); keys {@code ws.allowedOrigins},
 * {@code ws.maxFrameBytes} and {@code ws.pingInterval}.
 * <p>
 * Origins: a browser names the page that opened a WebSocket in its {@code Origin} header (RFC 6455
 * §4.1, §10.2), and a server that accepts any origin lets every web page a user visits register
 * and call through it with that user's network position. So by default no upgrade that carries an
 * {@code Origin} is accepted: the operator lists the origins of the web applications it serves
 * ({@code https://phone.example.com}), or {@code *} for any. An upgrade without {@code Origin} (a
 * client that is not a browser) is accepted either way.
 * Threading: immutable.
 *
 * @param maxFrameBytes  largest WebSocket message accepted, one frame or the frames of a fragmented
 *                       one together; a larger one closes its connection (status 1009). The
 *                       transport bounds it by {@code sip.maxMessageBytes} too
 * @param pingInterval   a connection that has sent nothing for this long gets a WebSocket ping; one
 *                       silent for another interval after it is closed
 * @param allowedOrigins origins ({@code scheme://host[:port]}, lower case) whose upgrades are
 *                       accepted, or the single entry {@code *} for any; empty accepts none that
 *                       carries an {@code Origin}
 */
public record WebSocketLimits(int maxFrameBytes, Duration pingInterval, List<String> allowedOrigins) {

    /** The entry of {@link #allowedOrigins} that accepts any origin. */
    public static final String ANY_ORIGIN = "*";

    public WebSocketLimits {
        allowedOrigins = List.copyOf(Objects.requireNonNull(allowedOrigins, "allowedOrigins"));
        Objects.requireNonNull(pingInterval, "pingInterval");
        if (allowedOrigins.contains(ANY_ORIGIN) && allowedOrigins.size() > 1) {
            throw new IllegalArgumentException("ws.allowedOrigins: " + allowedOrigins
                    + " (expected either * alone or a list of origins)");
        }
        for (String o : allowedOrigins) {
            if (!o.equals(ANY_ORIGIN) && !o.equals(origin(o))) {
                throw new IllegalArgumentException("ws.allowedOrigins: \"" + o + "\" is not an origin (expected"
                        + " SCHEME://HOST[:PORT] in lower case, no path, e.g. https://phone.example.com)");
            }
        }
        if (maxFrameBytes < 1024) {
            throw new IllegalArgumentException("ws.maxFrameBytes: " + maxFrameBytes + " (expected at least 1024)");
        }
        if (pingInterval.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("ws.pingInterval: " + pingInterval + " (expected at least 1s)");
        }
    }

    /** No origin-bearing upgrade accepted, 65,535-byte messages, a ping after 30 s of silence. */
    public static WebSocketLimits defaults() {
        return new Builder().build();
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().maxFrameBytes(maxFrameBytes).pingInterval(pingInterval).allowedOrigins(allowedOrigins);
    }

    /**
     * Named settings for a {@link WebSocketLimits}, starting from the defaults; {@link #build} checks them.
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private int maxFrameBytes = 65_535;
        private Duration pingInterval = Duration.ofSeconds(30);
        private List<String> allowedOrigins = List.of();

        public Builder maxFrameBytes(int v) { maxFrameBytes = v; return this; }
        public Builder pingInterval(Duration v) { pingInterval = v; return this; }
        public Builder allowedOrigins(List<String> v) { allowedOrigins = v; return this; }

        public WebSocketLimits build() {
            return new WebSocketLimits(maxFrameBytes, pingInterval, allowedOrigins);
        }
    }

    /**
     * Whether an upgrade whose {@code Origin} header is {@code origin} (null when it has none) is
     * accepted. The header is compared in its serialised form (RFC 6454 §6.2), case-insensitively.
     */
    public boolean originAllowed(String origin) {
        if (origin == null) {
            return true;
        }
        if (allowedOrigins.contains(ANY_ORIGIN)) {
            return true;
        }
        return allowedOrigins.contains(origin.trim().toLowerCase(Locale.ROOT));
    }

    /**
     * The serialised origin of {@code text} ({@code scheme://host[:port]}, lower case, RFC 6454 §6.2),
     * or null when it is not one: a scheme and a host, and nothing after the port.
     */
    public static String origin(String text) {
        try {
            URI u = new URI(text.trim());
            if (u.getScheme() == null || u.getHost() == null || u.getRawUserInfo() != null
                    || (u.getRawPath() != null && !u.getRawPath().isEmpty()) || u.getRawQuery() != null
                    || u.getRawFragment() != null) {
                return null;
            }
            String s = u.getScheme().toLowerCase(Locale.ROOT) + "://" + u.getHost().toLowerCase(Locale.ROOT);
            return u.getPort() >= 0 ? s + ":" + u.getPort() : s;
        } catch (URISyntaxException e) {
            return null;
        }
    }
}
