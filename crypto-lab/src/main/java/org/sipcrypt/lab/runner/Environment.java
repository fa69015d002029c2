package org.sipcrypt.lab.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a study ran on: the JVM, the CPU, the cores and the operating system, so results from
 * different machines are not compared unknowingly.
 * Threading: immutable.
 *
 * @param jvm       vendor and version of the JVM running the lab
 * @param cpuModel  the CPU's model name, or {@code unknown}
 * @param cores     processors available
 * @param os        operating system name, version and architecture
 * @param host      the machine's host name
 * @param labVersion the lab's version
 * @param pinning   where the server and the lab ran ({@link CpuPinning#describe()}); null in studies
 *                  stored before the lab pinned processes
 * @param serverCpus CPUs the server under test could use (its pinned set, or every core when nothing
 *                  was pinned), so that its CPU time says how busy it was; 0 when unknown (a server
 *                  the lab did not start, or a study stored before the lab recorded it)
 * @param oneWayDelayMs the one-way delay added on each leg the lab's processes end, in milliseconds;
 *                  0 for none (and in studies stored before the lab could add one)
 * @param delayMethod how it was added ({@link #LAB_DELAY_STAGE}), null without delay
 * @param tlsVersion the TLS version of every TLS leg ({@code 1.2}, {@code 1.3}); null in studies stored
 *                  before the lab had a choice (TLS 1.2)
 * @param keyExchange the key exchange of every TLS leg ({@code rsa}, {@code ecdhe-x25519}, ...); null
 *                  in studies stored before the lab had a choice (RSA)
 * @param certificate the certificate type of the server and the lab ({@code rsa2048}, {@code rsa3072},
 *                  {@code ecdsa-p256}); null in studies stored before the lab had a choice (RSA-2048)
 * @param resumption the generator's resumption ({@code none}, {@code session-id}); null where the
 *                  scenario's legs said it ({@code sessionReuse}), as in studies stored before the choice
 */
public record Environment(String jvm, String cpuModel, int cores, String os, String host, String labVersion,
                          String pinning, int serverCpus, double oneWayDelayMs, String delayMethod,
                          String tlsVersion, String keyExchange, String certificate, String resumption) {

    /**
     * The delay method of the lab's generators and UAS holding bytes themselves; {@code tc netem} in
     * a network namespace is not built (this lab's machines have no {@code sch_netem}).
     */
    public static final String LAB_DELAY_STAGE = "lab delay stage";

    /** What a study ran on, before saying where its processes ran. */
    public Environment(String jvm, String cpuModel, int cores, String os, String host, String labVersion) {
        this(jvm, cpuModel, cores, os, host, labVersion, null, 0, 0, null, null, null, null, null);
    }

    /** What a study ran on and where its processes ran, without delay. */
    public Environment(String jvm, String cpuModel, int cores, String os, String host, String labVersion,
                       String pinning, int serverCpus) {
        this(jvm, cpuModel, cores, os, host, labVersion, pinning, serverCpus, 0, null, null, null, null, null);
    }

    /** A copy saying where the processes ran, and on how many CPUs the server under test ran (0: unknown). */
    public Environment withPinning(String newPinning, int newServerCpus) {
        return new Environment(jvm, cpuModel, cores, os, host, labVersion, newPinning, newServerCpus, oneWayDelayMs,
                delayMethod, tlsVersion, keyExchange, certificate, resumption);
    }

    /** A copy saying which one-way delay the lab delay stage added (zero: none). */
    public Environment withDelay(java.time.Duration oneWayDelay) {
        return oneWayDelay.isZero()
                ? new Environment(jvm, cpuModel, cores, os, host, labVersion, pinning, serverCpus, 0, null,
                        tlsVersion, keyExchange, certificate, resumption)
                : new Environment(jvm, cpuModel, cores, os, host, labVersion, pinning, serverCpus,
                        oneWayDelay.toNanos() / 1e6, LAB_DELAY_STAGE, tlsVersion, keyExchange, certificate, resumption);
    }

    /** A copy saying which TLS version and key exchange the TLS legs ran ({@link Handshake}). */
    public Environment withHandshake(String version, String kx) {
        return new Environment(jvm, cpuModel, cores, os, host, labVersion, pinning, serverCpus, oneWayDelayMs,
                delayMethod, version, kx, certificate, resumption);
    }

    /** A copy saying which TLS version, key exchange, certificate and resumption the TLS legs ran. */
    public Environment withHandshake(Handshake h) {
        return new Environment(jvm, cpuModel, cores, os, host, labVersion, pinning, serverCpus, oneWayDelayMs,
                delayMethod, h.version(), h.keyExchange().configName(), h.certificate().configName(),
                h.resumption() == null ? null : h.resumption().configName());
    }

    /** The certificate type as the reports give it; a study stored before the lab had the choice ran {@code rsa2048}. */
    public String certificateDescribed() {
        return certificate != null ? certificate : "rsa2048";
    }

    /** The generator's resumption as the reports give it: {@code as the scenario} where none was chosen. */
    public String resumptionDescribed() {
        return resumption != null ? resumption : "as the scenario";
    }

    /**
     * The TLS handshake as the reports' environment table gives it: {@code TLS 1.3, ecdhe-x25519};
     * a study stored before the lab had the choice ran {@code TLS 1.2, rsa}.
     */
    public String handshakeDescribed() {
        return "TLS " + (tlsVersion != null ? tlsVersion : "1.2") + ", " + (keyExchange != null ? keyExchange : "rsa");
    }

    /** The delay as the reports' setup line gives it: {@code none}, or {@code 20 ms each way per leg (lab delay stage)}. */
    public String delayDescribed() {
        if (oneWayDelayMs <= 0) {
            return "none";
        }
        String ms = oneWayDelayMs == Math.rint(oneWayDelayMs) ? Long.toString((long) oneWayDelayMs)
                : String.format(java.util.Locale.ROOT, "%.3f", oneWayDelayMs);
        return ms + " ms each way per leg (" + (delayMethod != null ? delayMethod : "unknown method") + ")";
    }

    /** The machine this JVM runs on. */
    public static Environment current() {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown";
        }
        String version = Environment.class.getPackage().getImplementationVersion();
        return new Environment(System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.name") + " "
                + System.getProperty("java.runtime.version"), readCpuModel(), Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                host, version != null ? version : "0.1.0-SNAPSHOT");
    }

    private static String readCpuModel() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
            for (String l : lines) {
                if (l.startsWith("model name")) {
                    return l.substring(l.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
        return "unknown";
    }
}
