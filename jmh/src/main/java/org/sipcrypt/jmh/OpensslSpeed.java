package org.sipcrypt.jmh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Native reference figures from {@code openssl speed} on the same machine, for the primitives
 * behind the record-layer rows and the RSA-2048 handshakes: each bulk cipher and HMAC-SHA1 at the
 * record sizes measured ({@code openssl speed -elapsed -seconds 1 -bytes SIZE -evp CIPHER}; SEED
 * and RC4 need OpenSSL 3's legacy provider: {@code -provider legacy -provider default}), and RSA-2048
 * sign and verify ({@code openssl speed -elapsed -seconds 1 rsa2048}). Wall-clock time
 * ({@code -elapsed}), as JMH measures. A primitive this openssl refuses is left out with a note.
 * Threading: confined to the calling thread; every method that runs openssl blocks until it exits.
 */
final class OpensslSpeed {

    /** Primitive name as shown in the summary, to the openssl arguments that select it. */
    static final Map<String, List<String>> PRIMITIVES = primitives();

    /** Which primitive a cipher-suite provider's record layer uses. */
    static final Map<String, String> BY_PROVIDER = Map.of("aes", "aes-128-cbc", "3des", "des-ede3-cbc",
            "camellia", "camellia-128-cbc", "seed", "seed-cbc", "rc4", "rc4");

    static final String HMAC = "hmac-sha1";

    private static final long TIMEOUT_SECONDS = 120;

    /**
     * What openssl measured.
     * Threading: immutable once returned.
     *
     * @param version        {@code openssl version}
     * @param bytesPerSecond per primitive, per size in bytes, bytes processed per second
     * @param rsaSignPerSecond   RSA-2048 signatures per second; NaN when not measured
     * @param rsaVerifyPerSecond RSA-2048 verifications per second; NaN when not measured
     * @param notes          what could not be measured, and why
     */
    record Figures(String version, Map<String, Map<Integer, Double>> bytesPerSecond, double rsaSignPerSecond,
                   double rsaVerifyPerSecond, List<String> notes) {
    }

    private OpensslSpeed() {
    }

    private static Map<String, List<String>> primitives() {
        List<String> legacy = List.of("-provider", "legacy", "-provider", "default");
        Map<String, List<String>> m = new LinkedHashMap<>();
        m.put("aes-128-cbc", List.of("-evp", "aes-128-cbc"));
        m.put("des-ede3-cbc", List.of("-evp", "des-ede3-cbc"));
        m.put("camellia-128-cbc", List.of("-evp", "camellia-128-cbc"));
        m.put("seed-cbc", concat(legacy, List.of("-evp", "seed-cbc")));
        m.put("rc4", concat(legacy, List.of("-evp", "rc4")));
        m.put(HMAC, List.of("-hmac", "sha1"));
        return m;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return List.copyOf(out);
    }

    /** The figures, or empty when no {@code openssl} is on the PATH. */
    static Optional<Figures> measure(List<Integer> sizes, String openssl) {
        String version;
        try {
            version = run(List.of(openssl, "version")).trim();
        } catch (IOException e) {
            return Optional.empty();
        }
        Map<String, Map<Integer, Double>> rates = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        for (Map.Entry<String, List<String>> p : PRIMITIVES.entrySet()) {
            Map<Integer, Double> bySize = new TreeMap<>();
            for (int size : sizes) {
                List<String> cmd = new ArrayList<>(List.of(openssl, "speed", "-elapsed", "-seconds", "1", "-bytes",
                        Integer.toString(size)));
                cmd.addAll(p.getValue());
                try {
                    bySize.put(size, bytesPerSecond(run(cmd)));
                } catch (IOException | IllegalArgumentException e) {
                    notes.add(p.getKey() + " at " + size + " B not measured (" + String.join(" ", cmd.subList(1, cmd.size()))
                            + "): " + e.getMessage());
                }
            }
            if (!bySize.isEmpty()) {
                rates.put(p.getKey(), bySize);
            }
        }
        double sign = Double.NaN;
        double verify = Double.NaN;
        try {
            double[] rsa = rsaPerSecond(run(List.of(openssl, "speed", "-elapsed", "-seconds", "1", "rsa2048")));
            sign = rsa[0];
            verify = rsa[1];
        } catch (IOException | IllegalArgumentException e) {
            notes.add("rsa2048 not measured: " + e.getMessage());
        }
        return Optional.of(new Figures(version, rates, sign, verify, notes));
    }

    /**
     * Bytes per second from the table {@code openssl speed} prints for one primitive and one size:
     * the row under the {@code type ... bytes} header, whose last figure is in thousands of bytes per
     * second ({@code AES-128-CBC    1349784.58k}).
     */
    static double bytesPerSecond(String output) {
        String[] lines = output.split("\\R");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].startsWith("type") && lines[i].trim().endsWith("bytes")) {
                String[] row = lines[i + 1].trim().split("\\s+");
                String last = row[row.length - 1];
                if (row.length < 2 || !last.endsWith("k")) {
                    break;
                }
                try {
                    return Double.parseDouble(last.substring(0, last.length() - 1)) * 1000;
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("unreadable figure \"" + last + "\" in openssl's output", e);
                }
            }
        }
        throw new IllegalArgumentException("no figure in openssl's output: " + lastLine(output));
    }

    /** Signatures and verifications per second from the {@code rsa 2048 bits ...} row. */
    static double[] rsaPerSecond(String output) {
        for (String line : output.split("\\R")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 7 && f[0].equals("rsa") && f[1].equals("2048") && f[2].equals("bits")) {
                try {
                    return new double[] {Double.parseDouble(f[f.length - 2]), Double.parseDouble(f[f.length - 1])};
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("unreadable rsa 2048 row: " + line.trim(), e);
                }
            }
        }
        throw new IllegalArgumentException("no rsa 2048 row in openssl's output: " + lastLine(output));
    }

    private static String lastLine(String output) {
        String[] lines = output.trim().split("\\R");
        return lines.length == 0 ? "(nothing)" : lines[lines.length - 1];
    }

    /** Runs a command, returns what it printed; fails when it cannot start, times out or exits non-zero. */
    private static String run(List<String> command) throws IOException {
        Path out = Files.createTempFile("sipcrypt-openssl", ".txt");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            try {
                if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException(String.join(" ", command) + " did not finish in " + TIMEOUT_SECONDS + " s");
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for " + String.join(" ", command), e);
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException("exit " + p.exitValue() + ": " + lastLine(text));
            }
            return text;
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
