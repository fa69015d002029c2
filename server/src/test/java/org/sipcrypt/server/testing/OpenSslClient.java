package org.sipcrypt.server.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code openssl s_client} as an independent TLS peer: started in a directory (where the
 * PEM files are), fed some input, and read until its output shows an expected text or it exits
 * (at most 20 s); then ended by PID.
 * Threading: immutable (static methods only).
 */
public final class OpenSslClient {

    private OpenSslClient() {
    }

    /**
     * Starts {@code cmd} (an {@code openssl} command line) in {@code dir}, its errors merged into its
     * output; fails the test with how to install openssl when it is absent.
     */
    public static Process start(Path dir, List<String> cmd) {
        try {
            return new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError("openssl is needed for this test: apt-get install -y openssl", e);
        }
    }

    /**
     * Runs {@code openssl s_client ARGS} in {@code dir}, sends {@code input}, and returns its output
     * once it contains {@code until}; with {@code until} null, its input is closed after
     * {@code input} and the output returned once it exits.
     */
    public static String run(Path dir, String input, String until, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("openssl", "s_client"));
        cmd.addAll(List.of(args));
        Process p = start(dir, cmd);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread copier = new Thread(() -> {
            try (InputStream o = p.getInputStream()) {
                byte[] buf = new byte[4096];
                int n;
                while ((n = o.read(buf)) >= 0) {
                    synchronized (out) {
                        out.write(buf, 0, n);
                    }
                }
            } catch (IOException e) {
                // the process was destroyed: its output ends here
            }
        }, "openssl-output");
        copier.start();
        try {
            OutputStream in = p.getOutputStream();
            try {
                in.write(input.getBytes(StandardCharsets.US_ASCII));
                in.flush();
                if (until == null) {
                    in.close();
                }
            } catch (IOException e) {
                // s_client may end before it reads its input (a handshake the server refused): its
                // output says why; anything else is the test's failure
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    throw e;
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline) {
                synchronized (out) {
                    if (until != null && out.toString(StandardCharsets.US_ASCII).contains(until)) {
                        break;
                    }
                }
                if (!p.isAlive()) {
                    copier.join(2_000);
                    break;
                }
                Thread.sleep(20);
            }
            synchronized (out) {
                return out.toString(StandardCharsets.US_ASCII);
            }
        } finally {
            p.destroy();
            p.waitFor(5, TimeUnit.SECONDS);
        }
    }
}
