package org.sipcrypt.jmh;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.sipcrypt.server.auth.NonceService;

/**
 * The server's stateless digest nonces ({@link NonceService}: issue time, 8 random bytes and an
 * HMAC-SHA256, base64url): {@code create}, done for every challenge, and {@code check} of a valid
 * nonce, done for every request carrying credentials. With the server's defaults (not bound to the
 * client address, five-minute lifetime).
 * Threading: one instance per benchmark thread (JMH thread scope).
 */
@State(Scope.Thread)
public class NonceBenchmark extends BenchmarkDefaults {

    private NonceService nonces;
    private String client = "192.0.2.10";
    private String nonce;

    @Setup(Level.Trial)
    public void secret() {
        nonces = new NonceService("benchmark-nonce-secret".getBytes(StandardCharsets.UTF_8), Clock.systemUTC(),
                Duration.ofMinutes(5), false);
        nonce = nonces.create(client);
        if (check().status() != NonceService.Status.VALID) {
            throw new IllegalStateException("a fresh nonce is not valid: " + check());
        }
    }

    @Benchmark
    public String create() {
        return nonces.create(client);
    }

    @Benchmark
    public NonceService.Check check() {
        return nonces.check(nonce, client);
    }
}
