package org.sipcrypt.jmh;

import static org.sipcrypt.jmh.ScoreCells.MB;
import static org.sipcrypt.jmh.ScoreCells.err;
import static org.sipcrypt.jmh.ScoreCells.mbCell;
import static org.sipcrypt.jmh.ScoreCells.nanosPerOp;
import static org.sipcrypt.jmh.ScoreCells.nsCell;
import static org.sipcrypt.jmh.ScoreCells.num;
import static org.sipcrypt.jmh.ScoreCells.opsCell;
import static org.sipcrypt.jmh.ScoreCells.rate;
import static org.sipcrypt.jmh.ScoreCells.ratio;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;

/**
 * The Markdown summary of a run: one table per benchmark group (record layer with MB/s, handshakes
 * with the server's and the client's share, digest, nonces, SIP parsing), then the
 * {@code openssl speed} figures of the same primitives and the Java/OpenSSL ratios. Built from
 * JMH's {@link RunResult}s, so it reads no JSON; groups that did not run are left out, and
 * benchmarks that were planned but gave no result are listed at the top.
 * Threading: confined to the calling thread.
 */
final class MarkdownSummary {

    private final JmhResults runs;
    private final List<String> missing;
    private final OpensslSpeed.Figures openssl;
    private final String opensslAbsence;
    private final StringBuilder out = new StringBuilder();

    /**
     * @param missing        planned benchmarks that gave no result ({@code Class.method {params}})
     * @param openssl        the native figures, or null
     * @param opensslAbsence why there are none (shown when {@code openssl} is null)
     */
    MarkdownSummary(Collection<RunResult> results, List<String> missing, OpensslSpeed.Figures openssl,
                    String opensslAbsence) {
        this.runs = new JmhResults(results);
        this.missing = List.copyOf(missing);
        this.openssl = openssl;
        this.opensslAbsence = opensslAbsence;
    }

    /** Writes the summary to {@code file} and returns it. */
    String write(Path file) throws IOException {
        String text = render();
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, text);
        return text;
    }

    String render() {
        out.setLength(0);
        out.append("# sipcrypt micro-benchmarks\n\n");
        header();
        if (!missing.isEmpty()) {
            out.append("**").append(missing.size()).append(" benchmark(s) gave no result** (their error is in the run's log):\n\n");
            for (String m : missing) {
                out.append("- `").append(m).append("`\n");
            }
            out.append('\n');
        }
        recordLayer();
        handshakes();
        digest();
        nonces();
        sip();
        opensslSection();
        return out.toString();
    }

    private void header() {
        if (runs.all().isEmpty()) {
            out.append("No benchmark gave a result.\n\n");
            return;
        }
        BenchmarkParams p = runs.all().get(0).getParams();
        out.append(String.format(Locale.ROOT, "JMH %s on %s %s (%s), %d CPUs%s. Per benchmark: %d fork(s), warm-up %d × %s, "
                        + "measurement %d × %s. A score is the mean over the measurement iterations; ± is JMH's 99.9 %% "
                        + "confidence half-width as a share of the score (none with fewer than two iterations). "
                        + "1 MB = 10^6 bytes.\n\n",
                p.getJmhVersion(), p.getVmName(), p.getJdkVersion(), System.getProperty("os.arch"),
                Runtime.getRuntime().availableProcessors(), cpuModel(), p.getForks(), p.getWarmup().getCount(),
                p.getWarmup().getTime(), p.getMeasurement().getCount(), p.getMeasurement().getTime()));
    }

    private void recordLayer() {
        List<RunResult> protects = runs.of("RecordLayerBenchmark", "protect");
        List<RunResult> unprotects = runs.of("RecordLayerBenchmark", "unprotect");
        if (protects.isEmpty() && unprotects.isEmpty()) {
            return;
        }
        out.append("## TLS record layer: one record, TLS 1.2\n\n")
                .append("The client side protects one record, the server side unprotects it, through the server's own "
                        + "record layers: `jsse` = SunJSSE `SSLEngine` wrap/unwrap; `openssl` = Netty's OpenSslEngine "
                        + "(BoringSSL) wrap/unwrap; `bc/jca`, `bc/bc` = the bc engine's "
                        + "`BcTlsConnection` with the bulk cipher and MAC on SunJCE or on Bouncy Castle's lightweight "
                        + "engines. Suites: AES-128-CBC, 3DES-EDE-CBC, Camellia-128-CBC and SEED-CBC, each with HMAC-SHA1, "
                        + "and RC4-128-SHA. Two bc peers negotiate encrypt-then-MAC (RFC 7366; OpenSSL peers do too, "
                        + "SunJSSE has none), so a bc record is 4 bytes longer at 400 B (457 against 453). MB/s counts "
                        + "payload bytes only.\n\n");
        MarkdownTable t = new MarkdownTable("row", "size (B)", "protect ns/op", "protect ops/s", "protect MB/s", "unprotect ns/op",
                "unprotect ops/s", "unprotect MB/s");
        for (String[] rs : runs.rowsAndSizes()) {
            RunResult p = runs.find("RecordLayerBenchmark", "protect", "row", rs[0], "size", rs[1]);
            RunResult u = runs.find("RecordLayerBenchmark", "unprotect", "row", rs[0], "size", rs[1]);
            int size = Integer.parseInt(rs[1]);
            t.row("`" + rs[0] + "`", rs[1], nsCell(p), opsCell(p), mbCell(p, size), nsCell(u), opsCell(u), mbCell(u, size));
        }
        t.appendTo(out);
    }

    private void handshakes() {
        handshakes("HandshakeBenchmark", "bc engine (Bouncy Castle's TLS API)");
        handshakes("JsseHandshakeBenchmark", "jsse engine (SunJSSE SSLEngine)");
        handshakes("OpensslHandshakeBenchmark", "openssl engine (Netty's OpenSslEngine on BoringSSL)");
    }

    private void handshakes(String benchmark, String engine) {
        List<RunResult> hs = runs.of(benchmark, "handshake");
        if (hs.isEmpty()) {
            return;
        }
        out.append("## TLS handshakes: " + engine + ", RSA-2048 certificates, in memory\n\n")
                .append("`full`: TLS_RSA_WITH_AES_128_CBC_SHA, RSA key exchange. `resumed`: the same suite, abbreviated "
                        + "handshake by session ID. `mutual`: full, plus a required client certificate. `ecdhe`: "
                        + "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256. Each side's share is the time inside its own calls; "
                        + "\"handshakes/s\" per side is what one core doing only that side would manage.\n\n");
        MarkdownTable t = new MarkdownTable("kind", "µs/handshake (both)", "handshakes/s (both)", "server µs", "client µs",
                "server handshakes/s", "client handshakes/s", "client/server");
        for (String kind : List.of("full", "resumed", "mutual", "ecdhe")) {
            RunResult r = runs.find(benchmark, "handshake", "kind", kind);
            if (r == null) {
                continue;
            }
            double both = nanosPerOp(r.getPrimaryResult());
            double server = JmhResults.side(r, "serverNanos");
            double client = JmhResults.side(r, "clientNanos");
            t.row("`" + kind + "`", num(both / 1e3) + err(r.getPrimaryResult()), rate(1e9 / both), num(server / 1e3),
                    num(client / 1e3), rate(1e9 / server), rate(1e9 / client),
                    ratio(client / server));
        }
        t.appendTo(out);
    }

    private void digest() {
        if (runs.of("DigestBenchmark", null).isEmpty()) {
            return;
        }
        out.append("## Digest authentication (DigestAlgorithm)\n\n")
                .append("`ha1`: H(user:realm:password). `response`: the client's qop=auth response (HA2, then the "
                        + "response hash). `verify`: the server's check once HA1 is known (expected response and "
                        + "constant-time comparison).\n\n");
        MarkdownTable t = new MarkdownTable("operation", "MD5 ns/op", "MD5 ops/s", "SHA-256 ns/op", "SHA-256 ops/s");
        for (String op : List.of("ha1", "response", "verify")) {
            RunResult md5 = runs.find("DigestBenchmark", op, "algorithm", "MD5");
            RunResult sha = runs.find("DigestBenchmark", op, "algorithm", "SHA_256");
            if (md5 != null || sha != null) {
                t.row("`" + op + "`", nsCell(md5), opsCell(md5), nsCell(sha), opsCell(sha));
            }
        }
        t.appendTo(out);
    }

    private void nonces() {
        if (runs.of("NonceBenchmark", null).isEmpty()) {
            return;
        }
        out.append("## Digest nonces (NonceService: HMAC-SHA256, stateless)\n\n");
        MarkdownTable t = new MarkdownTable("operation", "ns/op", "ops/s");
        for (String op : List.of("create", "check")) {
            RunResult r = runs.find("NonceBenchmark", op);
            if (r != null) {
                t.row("`" + op + "`", nsCell(r), opsCell(r));
            }
        }
        t.appendTo(out);
    }

    private void sip() {
        if (runs.of("SipParseBenchmark", null).isEmpty()) {
            return;
        }
        out.append("## SIP parsing and serialising (JAIN-SIP StringMsgParser, encodeAsBytes)\n\n");
        MarkdownTable t = new MarkdownTable("message", "bytes", "parse ns/op", "parse ops/s", "parse MB/s", "serialize ns/op",
                "serialize ops/s");
        for (String m : SipMessages.NAMES) {
            RunResult p = runs.find("SipParseBenchmark", "parse", "message", m);
            RunResult s = runs.find("SipParseBenchmark", "serialize", "message", m);
            if (p == null && s == null) {
                continue;
            }
            int bytes = SipMessages.bytes(m).length;
            t.row("`" + m + "`", Integer.toString(bytes), nsCell(p), opsCell(p), mbCell(p, bytes), nsCell(s), opsCell(s));
        }
        t.appendTo(out);
    }

    private void opensslSection() {
        out.append("## OpenSSL on the same machine\n\n");
        if (openssl == null) {
            out.append(opensslAbsence).append("\n");
            return;
        }
        out.append("`").append(openssl.version()).append("`, `openssl speed -elapsed -seconds 1 -bytes SIZE -evp CIPHER` "
                + "(`-hmac sha1`; SEED and RC4 with `-provider legacy -provider default`), run after the Java benchmarks. "
                + "Bare primitives: encryption only, no record header, MAC or padding.\n\n");
        TreeSet<Integer> sizes = new TreeSet<>();
        openssl.bytesPerSecond().values().forEach(m -> sizes.addAll(m.keySet()));
        List<String> head = new ArrayList<>(List.of("primitive"));
        sizes.forEach(s -> head.add(s + " B MB/s"));
        MarkdownTable t = new MarkdownTable(head.toArray(new String[0]));
        for (Map.Entry<String, Map<Integer, Double>> e : openssl.bytesPerSecond().entrySet()) {
            List<String> cells = new ArrayList<>(List.of("`" + e.getKey() + "`"));
            sizes.forEach(s -> cells.add(e.getValue().containsKey(s) ? num(e.getValue().get(s) / MB) : "—"));
            t.row(cells.toArray(new String[0]));
        }
        t.appendTo(out);
        if (!Double.isNaN(openssl.rsaSignPerSecond())) {
            out.append(String.format(Locale.ROOT, "RSA-2048 (`openssl speed -elapsed -seconds 1 rsa2048`): %s sign/s, "
                    + "%s verify/s.\n\n", rate(openssl.rsaSignPerSecond()), rate(openssl.rsaVerifyPerSecond())));
        }
        for (String note : openssl.notes()) {
            out.append("- ").append(note).append('\n');
        }
        if (!openssl.notes().isEmpty()) {
            out.append('\n');
        }
        javaVersusOpenssl();
        handshakesVersusRsa();
    }

    private void javaVersusOpenssl() {
        Map<Integer, Double> hmac = openssl.bytesPerSecond().get(OpensslSpeed.HMAC);
        MarkdownTable t = new MarkdownTable("Java row", "size (B)", "Java protect MB/s", "OpenSSL cipher", "OpenSSL MB/s", "Java/OpenSSL",
                "OpenSSL cipher+HMAC-SHA1 MB/s (est.)", "Java/(cipher+HMAC)");
        boolean any = false;
        for (String[] rs : runs.rowsAndSizes()) {
            RunResult p = runs.find("RecordLayerBenchmark", "protect", "row", rs[0], "size", rs[1]);
            String primitive = OpensslSpeed.BY_PROVIDER.get(CipherRow.parse(rs[0]).provider());
            int size = Integer.parseInt(rs[1]);
            Map<Integer, Double> nativeRates = primitive == null ? null : openssl.bytesPerSecond().get(primitive);
            if (p == null || nativeRates == null || !nativeRates.containsKey(size)) {
                continue;
            }
            double java = size / nanosPerOp(p.getPrimaryResult()) * 1e9;
            double cipher = nativeRates.get(size);
            double both = hmac != null && hmac.containsKey(size) ? 1 / (1 / cipher + 1 / hmac.get(size)) : Double.NaN;
            t.row("`" + rs[0] + "`", rs[1], num(java / MB), "`" + primitive + "`", num(cipher / MB), ratio(java / cipher),
                    num(both / MB), ratio(java / both));
            any = true;
        }
        if (!any) {
            return;
        }
        out.append("### Java record protection against OpenSSL's bare cipher\n\n")
                .append("Not the same operation: a TLS record adds HMAC-SHA1 (over the payload and a 13-byte "
                        + "pseudo-header, or over the ciphertext with encrypt-then-MAC), CBC padding, a fresh explicit IV "
                        + "and the 5-byte header, and the Java figure includes the engine's buffering and copies. The estimate combines OpenSSL's cipher and HMAC-SHA1 rates at the same "
                        + "size (time of one plus time of the other), which is closer to a record's work; it still leaves "
                        + "out padding, IV and header. A ratio below 1 means Java is slower.\n\n");
        t.appendTo(out);
    }

    private void handshakesVersusRsa() {
        if (Double.isNaN(openssl.rsaSignPerSecond())) {
            return;
        }
        MarkdownTable t = new MarkdownTable("engine", "side", "full handshakes/s", "OpenSSL RSA-2048 op", "OpenSSL ops/s",
                "engine/OpenSSL");
        boolean any = false;
        for (String[] e : new String[][] {{"HandshakeBenchmark", "bc"}, {"JsseHandshakeBenchmark", "jsse"},
                {"OpensslHandshakeBenchmark", "openssl"}}) {
            RunResult full = runs.find(e[0], "handshake", "kind", "full");
            if (full == null) {
                continue;
            }
            any = true;
            double server = 1e9 / JmhResults.side(full, "serverNanos");
            double client = 1e9 / JmhResults.side(full, "clientNanos");
            t.row(e[1], "server", rate(server), "sign", rate(openssl.rsaSignPerSecond()),
                    ratio(server / openssl.rsaSignPerSecond()));
            t.row(e[1], "client", rate(client), "verify", rate(openssl.rsaVerifyPerSecond()),
                    ratio(client / openssl.rsaVerifyPerSecond()));
        }
        if (!any) {
            return;
        }
        out.append("### Full RSA handshakes against OpenSSL's RSA-2048\n\n")
                .append("With RSA key exchange the server's big step is one RSA-2048 private-key decryption (the cost of "
                        + "a signature); the client's are a public-key encryption and the check of the server's chain "
                        + "(a verification, plus X.509 parsing and PKIX validation). The ratio sets a whole handshake "
                        + "side on each engine against OpenSSL doing only that one RSA step.\n\n");
        t.appendTo(out);
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return ", " + line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            return "";
        }
        return "";
    }
}
