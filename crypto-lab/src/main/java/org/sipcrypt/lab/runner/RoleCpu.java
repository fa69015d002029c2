package org.sipcrypt.lab.runner;

import java.util.ArrayList;
import java.util.List;

/**
 * The lab's own CPU time per completed call (or operation) over the measured part of a point, by
 * role, to set beside the server's ({@link ServerSample#cpuMicrosPerCall()}). The lab's aim is that
 * neither role costs more than {@link #MAX_SHARE_OF_SERVER} of what the server does, so that the
 * generator never limits a run; {@link #over} names the roles that did. Unknown values are -1: a
 * scenario without a UAS, a machine without {@code /proc}, a point stored before the lab measured
 * them.
 * Threading: immutable.
 *
 * @param generatorMicrosPerCall the generators' CPU per call. With the generator in the lab's process:
 *                               the process's CPU less the UAS's threads' and the JIT compiler's
 *                               (as the server's is counted), so it also carries the JVM's garbage
 *                               collector (an upper bound of the generator's own cost); with
 *                               generator processes: their own CPU
 * @param uasMicrosPerCall       the CPU of the UAS's threads per call
 */
public record RoleCpu(double generatorMicrosPerCall, double uasMicrosPerCall) {

    /** Nothing known. */
    public static final RoleCpu UNKNOWN = new RoleCpu(-1, -1);

    /** The most a role of the lab may cost per call, as a share of the server's cost per call. */
    public static final double MAX_SHARE_OF_SERVER = 1.0 / 3;

    /** The roles of this point that cost more than {@link #MAX_SHARE_OF_SERVER} of {@code serverMicrosPerCall}. */
    public List<String> over(double serverMicrosPerCall) {
        return over(serverMicrosPerCall, generatorMicrosPerCall, uasMicrosPerCall);
    }

    /**
     * The roles, {@code generator} and {@code UAS} in that order, whose CPU per call is more than
     * {@link #MAX_SHARE_OF_SERVER} of the server's; empty when the server's is unknown, and a role
     * whose CPU is unknown is never named.
     */
    public static List<String> over(double serverMicrosPerCall, double generatorMicrosPerCall,
                                    double uasMicrosPerCall) {
        List<String> out = new ArrayList<>();
        if (!(serverMicrosPerCall > 0)) {
            return out;
        }
        // as shares, so that a role at a third exactly is not over by a rounding of the limit
        if (generatorMicrosPerCall / serverMicrosPerCall > MAX_SHARE_OF_SERVER) {
            out.add("generator");
        }
        if (uasMicrosPerCall / serverMicrosPerCall > MAX_SHARE_OF_SERVER) {
            out.add("UAS");
        }
        return out;
    }
}
