package org.sipcrypt.lab.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The kernel's count of connections a listener's full queue turned away ({@code ListenOverflows} in
 * {@code /proc/net/netstat}), machine-wide: a rise over a run with a connection per call means a
 * listener (the lab's UAS, or the server) did not accept in time, and its dropped SYNs or handshake
 * ends fail calls that the server did not fail. -1 where there is no {@code /proc/net/netstat}.
 * Threading: thread-safe; reads a file.
 */
public final class ListenOverflows {

    private static final Path NETSTAT = Path.of("/proc/net/netstat");

    private ListenOverflows() {
    }

    /** Overflows so far, or -1 when unknown. */
    public static long count() {
        try {
            return parse(Files.readString(NETSTAT));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * The {@code ListenOverflows} value of {@code /proc/net/netstat}'s text: a {@code TcpExt:} line of
     * names followed by one of values. -1 when it has none.
     */
    static long parse(String netstat) {
        String[] lines = netstat.split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (!lines[i].startsWith("TcpExt:") || !lines[i + 1].startsWith("TcpExt:")) {
                continue;
            }
            String[] names = lines[i].trim().split("\\s+");
            String[] values = lines[i + 1].trim().split("\\s+");
            for (int k = 1; k < names.length && k < values.length; k++) {
                if (names[k].equals("ListenOverflows")) {
                    return Long.parseLong(values[k]);
                }
            }
        }
        return -1;
    }
}
