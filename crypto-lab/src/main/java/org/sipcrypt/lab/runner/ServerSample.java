package org.sipcrypt.lab.runner;

import java.util.List;
import java.util.TreeSet;

/**
 * The server under test as measured from outside its process over the measured part of a run:
 * CPU from {@code /proc/PID/stat} less its JIT compiler threads' ({@code /proc/PID/task}), from
 * its GC log the heap left after the last garbage collection and the collector's pauses, and from
 * its {@code /metrics} the TLS engines its handshakes ran on. Unknown values are -1 (a target the
 * lab did not start and was given no PID of, a server not on a JVM).
 * Threading: immutable.
 *
 * @param pid              the server's process ID, -1 unknown
 * @param cpuPercent       CPU in % of one core over the measured part
 * @param cpuMicrosPerCall server CPU time per completed call (or operation)
 * @param heapAfterGcBytes heap in use after the last collection of the run
 * @param gcPauseTotalMs   the collector's pauses over the measured part, summed
 * @param gcPauseMaxMs     the longest of those pauses (0 when there was none)
 * @param tlsEngines       the TLS engines of the server's handshakes ({@link ServerTlsEngines}), sorted:
 *                         sipcrypt's as its {@code tls.handshakes{engine}} counted them from its start
 *                         to the end of the run (every TLS connection the point's calls used was made
 *                         in that time, a persistent one in an earlier window or warm-up too);
 *                         {@link ServerTlsEngines#KAMAILIO} for Kamailio with a TLS leg; empty
 *                         without a TLS leg, for a target the lab did not start, and where they were
 *                         not read (a point stored before the lab read them)
 */
public record ServerSample(long pid, double cpuPercent, double cpuMicrosPerCall, long heapAfterGcBytes,
                           double gcPauseTotalMs, double gcPauseMaxMs, List<String> tlsEngines) {

    /** Nothing known about the server. */
    public static final ServerSample UNKNOWN = new ServerSample(-1, -1, -1, -1);

    public ServerSample {
        // results.json and database rows written before the lab read the engines have none
        tlsEngines = tlsEngines == null ? List.of() : List.copyOf(new TreeSet<>(tlsEngines));
    }

    /** A sample without the TLS engines. */
    public ServerSample(long pid, double cpuPercent, double cpuMicrosPerCall, long heapAfterGcBytes,
                        double gcPauseTotalMs, double gcPauseMaxMs) {
        this(pid, cpuPercent, cpuMicrosPerCall, heapAfterGcBytes, gcPauseTotalMs, gcPauseMaxMs, List.of());
    }

    /** A sample without the collector's pauses (a server not on a JVM, or not read). */
    public ServerSample(long pid, double cpuPercent, double cpuMicrosPerCall, long heapAfterGcBytes) {
        this(pid, cpuPercent, cpuMicrosPerCall, heapAfterGcBytes, -1, -1);
    }

    /** The same sample with these TLS engines. */
    public ServerSample withTlsEngines(List<String> engines) {
        return new ServerSample(pid, cpuPercent, cpuMicrosPerCall, heapAfterGcBytes, gcPauseTotalMs, gcPauseMaxMs,
                engines);
    }
}
