package org.sipcrypt.jmh;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.auth.NonceService;

/**
 * The hashing of SIP digest authentication (RFC 3261 §22.4, RFC 7616/8760) with the server's
 * {@link DigestAlgorithm}, for MD5 and SHA-256: {@code ha1} (H(user:realm:password), what the
 * {@code users} command stores), {@code response} (the client's computation with {@code qop=auth}:
 * HA2 and the response hash), and {@code verify} (the server's check of a REGISTER's credentials
 * once the HA1 is at hand: the expected response and the constant-time comparison). The nonce's
 * own check is {@link NonceBenchmark}.
 * Threading: one instance per benchmark thread (JMH thread scope).
 */
@State(Scope.Thread)
public class DigestBenchmark extends BenchmarkDefaults {

    @Param({"MD5", "SHA_256"})
    public DigestAlgorithm algorithm;

    // instance fields, not constants, so that nothing is computed at compile time
    private String user = "alice";
    private String realm = "example.com";
    private String password = "s3cret-Passw0rd";
    private String method = "REGISTER";
    private String uri = "sips:example.com";
    private String nc = "00000001";
    private String cnonce = "0a4f113b";
    private String qop = "auth";
    private String ha1;
    private String nonce;
    private String response;

    @Setup(Level.Trial)
    public void credentials() {
        NonceService nonces = new NonceService("benchmark-nonce-secret".getBytes(StandardCharsets.UTF_8),
                Clock.systemUTC(), Duration.ofMinutes(5), false);
        nonce = nonces.create("192.0.2.10");
        ha1 = algorithm.ha1(user, realm, password);
        response = algorithm.response(ha1, nonce, nc, cnonce, qop, method, uri);
        if (!verify()) {
            throw new IllegalStateException(algorithm + ": the server does not accept the client's response");
        }
    }

    @Benchmark
    public String ha1() {
        return algorithm.ha1(user, realm, password);
    }

    @Benchmark
    public String response() {
        return algorithm.response(ha1, nonce, nc, cnonce, qop, method, uri);
    }

    @Benchmark
    public boolean verify() {
        return DigestAlgorithm.sameDigest(algorithm.response(ha1, nonce, nc, cnonce, qop, method, uri), response);
    }
}
