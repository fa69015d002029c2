package org.sipcrypt.lab.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.sipcrypt.lab.loadgen.IdleConnections;
import org.sipcrypt.lab.loadgen.TlsOptions;
import org.sipcrypt.server.http.ServerMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The step of a comparison that measures the server's heap per idle connection ({@link IdleHeap}), on
 * a server the lab started whose measured points are done: it waits for the server to settle, reads it
 * ({@link #snapshot}), opens N connections on the left leg's transport from the generator's side with
 * a full TLS handshake each ({@link IdleConnections}), waits, reads it again, closes them, waits and
 * reads it a third time. A read is the {@code Total} line of {@code jcmd PID GC.class_histogram} (live
 * objects only, after the full collection it makes first; under ZGC the heap's "used" figure also
 * counts pages not yet reclaimed, which this does not), {@code VmRSS} of {@code /proc/PID/status}, and
 * the server's {@code transport.connections.open} gauge from its {@code /metrics}.
 * Threading: the runner's thread; blocks.
 */
final class IdleHeapStep {

    private static final Logger log = LoggerFactory.getLogger(IdleHeapStep.class);

    /** The open-connection gauge in the Prometheus text format. */
    static final String OPEN_GAUGE = ServerMetrics.PREFIX + "transport_connections_open";
    /** How long the server is left after each change before it is read: closes and answers finish. */
    static final Duration SETTLE = Duration.ofSeconds(2);
    /** Bound on each connection's connect, handshake and answer. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** Bound on one {@code jcmd}: a full collection and a class histogram of a 1 GiB heap. */
    private static final long JCMD_SECONDS = 120;

    private IdleHeapStep() {
    }

    /**
     * Measures the server of {@code b} with {@code count} idle connections, whose TLS (for a secure
     * leg) is {@code tls}.
     */
    static IdleHeap run(Bench b, int count, TlsOptions tls) throws InterruptedException {
        String transport = b.leftTransport.configName();
        if (b.server == null) {
            return new IdleHeap(b.cipher, transport, count, 0, 0, null, 0, null, null, null, List.of(),
                    "not a server the lab started");
        }
        IdleHeap.Snapshot before;
        try {
            TimeUnit.MILLISECONDS.sleep(SETTLE.toMillis());
            before = snapshot(b.server);
        } catch (IOException e) {
            return new IdleHeap(b.cipher, transport, count, 0, 0, null, 0, null, null, null, List.of(),
                    "the server's heap could not be read: " + e.getMessage());
        }
        // as long as a full handshake on a busy CPU could take for every connection, and a minute more
        Duration deadline = Duration.ofSeconds(60 + count / 20L);
        IdleConnections idle;
        try {
            idle = IdleConnections.open(b.target, b.leftTransport, tls, count, TIMEOUT, deadline);
        } catch (IOException | RuntimeException e) {
            return new IdleHeap(b.cipher, transport, count, 0, count, e.toString(), 0, before, null, null, List.of(),
                    "the connections could not be opened: " + e.getMessage());
        }
        double openSeconds = idle.openTime().toNanos() / 1e9;
        IdleHeap.Snapshot held;
        IdleHeap.Snapshot after;
        List<String> engines;
        try {
            TimeUnit.MILLISECONDS.sleep(SETTLE.toMillis());
            held = snapshot(b.server);
            List<String> e = b.tlsEngines();
            engines = e == null ? List.of() : e;
        } catch (IOException e) {
            return new IdleHeap(b.cipher, transport, count, idle.held(), idle.failed(), idle.firstFailure(),
                    openSeconds, before, null, null, List.of(), "the server's heap could not be read: " + e.getMessage());
        } finally {
            idle.close();
        }
        try {
            TimeUnit.MILLISECONDS.sleep(SETTLE.toMillis());
            after = snapshot(b.server);
        } catch (IOException e) {
            log.warn("server pid {}: its heap after closing the idle connections could not be read: {}",
                    b.server.pid(), e.toString());
            after = IdleHeap.Snapshot.UNKNOWN;
        }
        String invalid = idle.held() == 0 ? "no connection held" + (idle.firstFailure() == null ? ""
                : ": " + idle.firstFailure()) : null;
        return new IdleHeap(b.cipher, transport, count, idle.held(), idle.failed(), idle.firstFailure(), openSeconds,
                before, held, after, engines, invalid);
    }

    /** The server now: its live heap and objects after a full collection, resident set, open connections. */
    static IdleHeap.Snapshot snapshot(ServerProcess server) throws IOException, InterruptedException {
        long[] total = histogramTotal(jcmd(server.pid(), "GC.class_histogram"));
        long rss = rssBytes(Path.of("/proc", Long.toString(server.pid()), "status"));
        long open = -1;
        try {
            open = gauge(server.metricsText(), OPEN_GAUGE);
        } catch (IOException e) {
            log.debug("server pid {}: its open connections not read: {}", server.pid(), e.toString());
        }
        return new IdleHeap.Snapshot(total[1], total[0], rss, open);
    }

    /** The output of {@code jcmd PID COMMAND}, run with this JVM's own {@code jcmd}. */
    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            throw new IOException(jcmd + " not found (the lab needs a JDK for the heap per idle connection)");
        }
        List<String> cmd = new ArrayList<>(List.of(jcmd.toString(), Long.toString(pid), command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out;
        try {
            out = p.getInputStream().readAllBytes();
            if (!p.waitFor(JCMD_SECONDS, TimeUnit.SECONDS)) {
                throw new IOException("jcmd " + pid + " " + command + " did not end in " + JCMD_SECONDS + " s");
            }
        } finally {
            p.destroyForcibly();
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException("jcmd " + pid + " " + command + " exited with " + p.exitValue() + ": "
                    + text.strip().lines().reduce((a, c) -> c).orElse(""));
        }
        return text;
    }

    /**
     * The {@code Total INSTANCES BYTES} line of a class histogram ({@code jcmd GC.class_histogram},
     * {@code jmap -histo}): {objects, bytes}.
     *
     * @throws IOException when it has none
     */
    static long[] histogramTotal(String histogram) throws IOException {
        for (String line : histogram.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[0].equals("Total")) {
                try {
                    return new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])};
                } catch (NumberFormatException e) {
                    throw new IOException("not a class histogram's Total line: " + line, e);
                }
            }
        }
        String t = histogram.strip();
        throw new IOException("no Total line in the class histogram: " + (t.length() > 300 ? t.substring(0, 300) + "..." : t));
    }

    /** {@code VmRSS} of a {@code /proc/PID/status} file in bytes, -1 when it has none. */
    static long rssBytes(Path status) {
        try {
            for (String line : Files.readAllLines(status, StandardCharsets.US_ASCII)) {
                if (line.startsWith("VmRSS:")) {
                    String[] f = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(f[0]) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            log.debug("no VmRSS in {}: {}", status, e.toString());
        }
        return -1;
    }

    /**
     * The sum of a family's samples in a Prometheus text exposition (format 0.0.4), rounded; -1 when the
     * family has no sample.
     *
     * @throws IOException a sample of the family whose value is not a number
     */
    static long gauge(String exposition, String family) throws IOException {
        double sum = 0;
        boolean seen = false;
        for (String line : exposition.split("\n")) {
            if (!line.startsWith(family + " ") && !line.startsWith(family + "{")) {
                continue;
            }
            int close = line.lastIndexOf('}');
            String[] f = line.substring(close < 0 ? family.length() : close + 1).trim().split("\\s+");
            try {
                sum += Double.parseDouble(f[0]);
            } catch (NumberFormatException e) {
                throw new IOException("not a sample of " + family + ": " + line, e);
            }
            seen = true;
        }
        return seen ? Math.round(sum) : -1;
    }
}
