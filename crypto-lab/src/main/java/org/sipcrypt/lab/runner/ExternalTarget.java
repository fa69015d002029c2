package org.sipcrypt.lab.runner;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * A server the lab did not start (another sipcrypt, or any SIP proxy): where it listens for the left
 * leg's transport, its PID on this machine when known (-1 else, and its CPU is then not measured),
 * and the fixed port the lab's UAS listens on, to which that server must route {@code lab.test}.
 * Threading: immutable.
 *
 * @param address where the generators send
 * @param pid     the server's process ID, or -1
 * @param uasPort the UAS's port on 127.0.0.1
 */
public record ExternalTarget(InetSocketAddress address, long pid, int uasPort) {

    public ExternalTarget {
        Objects.requireNonNull(address, "address");
        if (uasPort < 1 || uasPort > 65535) {
            throw new IllegalArgumentException("--uas-port: " + uasPort + " (expected 1 to 65535)");
        }
    }
}
