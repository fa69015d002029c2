package org.sipcrypt.server.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Per-source limits on new requests, keys {@code limits.*}: a token bucket per source address for
 * requests outside a dialog, and a temporary ban of a source after repeated authentication failures.
 * Threading: immutable.
 *
 * @param requestsPerSecond  new requests one source may send per second, sustained; 0 turns the rate limit off
 * @param burst              requests a source may send at once above that rate (the bucket's size)
 * @param authFailures       failed digest authentications (wrong password, unknown user) from one source
 *                           within {@code authFailureWindow} that ban it; 0 turns bans off
 * @param authFailureWindow  how long failures are counted from the first of a series
 * @param banTime            how long a ban lasts
 * @param allow              sources never limited nor banned (besides {@code auth.trustedPeers})
 * @param maxSources         most sources whose state is kept; beyond it new sources share one bucket
 */
public record LimitsConfig(int requestsPerSecond, int burst, int authFailures, Duration authFailureWindow,
                           Duration banTime, List<AddressBlock> allow, int maxSources) {

    /** Loopback, the default of {@code limits.allow}: only this host can send from it (see {@link #defaults()}). */
    public static final List<AddressBlock> LOOPBACK = List.of(AddressBlock.parse("127.0.0.0/8"),
            AddressBlock.parse("::1"));

    public LimitsConfig {
        Objects.requireNonNull(authFailureWindow, "authFailureWindow");
        Objects.requireNonNull(banTime, "banTime");
        allow = List.copyOf(Objects.requireNonNull(allow, "allow"));
        if (requestsPerSecond < 0) {
            throw new IllegalArgumentException("limits.requestsPerSecond: " + requestsPerSecond
                    + " (expected 0 or more)");
        }
        if (burst < 1) {
            throw new IllegalArgumentException("limits.burst: " + burst + " (expected at least 1)");
        }
        if (authFailures < 0) {
            throw new IllegalArgumentException("limits.authFailures: " + authFailures + " (expected 0 or more)");
        }
        if (authFailureWindow.isZero() || authFailureWindow.isNegative()) {
            throw new IllegalArgumentException("limits.authFailureWindow: " + authFailureWindow + " (expected above 0)");
        }
        if (banTime.isZero() || banTime.isNegative()) {
            throw new IllegalArgumentException("limits.banTime: " + banTime + " (expected above 0)");
        }
        if (maxSources < 1) {
            throw new IllegalArgumentException("limits.maxSources: " + maxSources + " (expected at least 1)");
        }
    }

    /**
     * 100 new requests per second per source with a burst of 200 (a PBX trunk at 40 calls/s with
     * digest authentication, two INVITEs a call, and its OPTIONS pings fits; a scanner is slowed to
     * that pace), a ban of 10 minutes after 10 authentication failures within a minute, loopback
     * allowed (only this host can send from it: the kernel drops packets from outside claiming a
     * loopback source), 50,000 sources kept (about 10 MB).
     */
    public static LimitsConfig defaults() {
        return new Builder().build();
    }

    /** Whether anything is limited: the rate or bans. */
    public boolean enabled() {
        return requestsPerSecond > 0 || authFailures > 0;
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().requestsPerSecond(requestsPerSecond).burst(burst).authFailures(authFailures)
                .authFailureWindow(authFailureWindow).banTime(banTime).allow(allow).maxSources(maxSources);
    }

    /**
     * Named settings for a {@link LimitsConfig}, starting from the defaults; {@link #build} checks them.
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private int requestsPerSecond = 100;
        private int burst = 200;
        private int authFailures = 10;
        private Duration authFailureWindow = Duration.ofMinutes(1);
        private Duration banTime = Duration.ofMinutes(10);
        private List<AddressBlock> allow = LOOPBACK;
        private int maxSources = 50_000;

        public Builder requestsPerSecond(int v) { requestsPerSecond = v; return this; }
        public Builder burst(int v) { burst = v; return this; }
        public Builder authFailures(int v) { authFailures = v; return this; }
        public Builder authFailureWindow(Duration v) { authFailureWindow = v; return this; }
        public Builder banTime(Duration v) { banTime = v; return this; }
        public Builder allow(List<AddressBlock> v) { allow = v; return this; }
        public Builder maxSources(int v) { maxSources = v; return this; }

        public LimitsConfig build() {
            return new LimitsConfig(requestsPerSecond, burst, authFailures, authFailureWindow, banTime, allow,
                    maxSources);
        }
    }
}
