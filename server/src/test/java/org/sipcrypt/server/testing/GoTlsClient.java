package org.sipcrypt.server.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Go's {@code crypto/tls} as an independent TLS 1.3 peer: the client in {@code go/tlsclient.go}
 * (standard library only, built offline with the {@code go} on the path into a directory the test
 * gives) connects, prints {@code version=TLS 1.3 suite=... group=X25519MLKEM768} (Go's name of the
 * negotiated group), sends its input and prints the answer up to a SIP status line. Go 1.24 and
 * later offer X25519MLKEM768 by default.
 * Threading: not thread-safe; one instance per test class.
 */
public final class GoTlsClient {

    private final Path binary;

    private GoTlsClient(Path binary) {
        this.binary = binary;
    }

    /**
     * Writes the client's source into {@code dir} and builds it there (at most 3 minutes, the first
     * build of a cold Go cache); fails the test with how to install Go when it is absent.
     */
    public static GoTlsClient build(Path dir) throws Exception {
        Path source = dir.resolve("tlsclient.go");
        try (InputStream in = GoTlsClient.class.getResourceAsStream("/go/tlsclient.go")) {
            Files.copy(in, source);
        }
        Process p;
        try {
            ProcessBuilder pb = new ProcessBuilder("go", "build", "-o", "tlsclient", "tlsclient.go")
                    .directory(dir.toFile()).redirectErrorStream(true);
            // offline and with the Go installed here: the standard library needs no module
            pb.environment().putAll(Map.of("GOTOOLCHAIN", "local", "GOPROXY", "off", "GOFLAGS", ""));
            p = pb.start();
        } catch (IOException e) {
            throw new AssertionError("Go is needed for this test: apt-get install -y golang", e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("go build did not finish in 3 minutes: " + out);
        }
        if (p.exitValue() != 0) {
            throw new AssertionError("go build failed: " + out);
        }
        return new GoTlsClient(dir.resolve("tlsclient"));
    }

    /**
     * Connects to 127.0.0.1:{@code port} trusting {@code ca}, offering {@code groups} (IANA codes,
     * most preferred first; none for Go's defaults), sends {@code input}, and returns what the
     * client printed (at most 30 s).
     */
    public String run(int port, Path ca, String input, int... groups) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(binary.toString(), "127.0.0.1:" + port, ca.toString()));
        for (int g : groups) {
            cmd.add(Integer.toString(g));
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            try (OutputStream in = p.getOutputStream()) {
                in.write(input.getBytes(StandardCharsets.US_ASCII));
            }
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError("the Go client did not finish in 30 s");
            }
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
        }
    }
}
