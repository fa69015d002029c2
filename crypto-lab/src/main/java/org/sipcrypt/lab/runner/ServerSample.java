package org.sipcrypt.lab.runner;

/**
 * The server under test as measured from outside its process over the measured part of a run:
 * CPU from {@code /proc/PID/stat} less its JIT compiler threads' ({@code /proc/PID/task}), and the
 * heap left after the last garbage collection from its GC log. Unknown values are -1 (a target the
 * lab did not start and was given no PID of).
 * Threading: immutable.
 *
 * @param pid              the server's process ID, -1 unknown
 * @param cpuPercent       CPU in % of one core over the measured part
 * @param cpuMicrosPerCall server CPU time per completed call (or operation)
 * @param heapAfterGcBytes heap in use after the last collection of the run
 */
public record ServerSample(long pid, double cpuPercent, double cpuMicrosPerCall, long heapAfterGcBytes) {

    /** Nothing known about the server. */
    public static final ServerSample UNKNOWN = new ServerSample(-1, -1, -1, -1);
}
