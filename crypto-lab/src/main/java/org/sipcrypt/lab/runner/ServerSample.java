package org.sipcrypt.lab.runner;

/**
 * The server under test as measured from outside its process over the measured part of a run:
 * CPU from {@code /proc/PID/stat} less its JIT compiler threads' ({@code /proc/PID/task}), and from
 * its GC log the heap left after the last garbage collection and the collector's pauses. Unknown
 * values are -1 (a target the lab did not start and was given no PID of, a server not on a JVM).
 * Threading: immutable.
 *
 * @param pid              the server's process ID, -1 unknown
 * @param cpuPercent       CPU in % of one core over the measured part
 * @param cpuMicrosPerCall server CPU time per completed call (or operation)
 * @param heapAfterGcBytes heap in use after the last collection of the run
 * @param gcPauseTotalMs   the collector's pauses over the measured part, summed
 * @param gcPauseMaxMs     the longest of those pauses (0 when there was none)
 */
public record ServerSample(long pid, double cpuPercent, double cpuMicrosPerCall, long heapAfterGcBytes,
                           double gcPauseTotalMs, double gcPauseMaxMs) {

    /** Nothing known about the server. */
    public static final ServerSample UNKNOWN = new ServerSample(-1, -1, -1, -1);

    /** A sample without the collector's pauses (a server not on a JVM, or not read). */
    public ServerSample(long pid, double cpuPercent, double cpuMicrosPerCall, long heapAfterGcBytes) {
        this(pid, cpuPercent, cpuMicrosPerCall, heapAfterGcBytes, -1, -1);
    }
}
