package org.sipcrypt.lab.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ListenOverflowsTest {

    @Test
    void readsListenOverflowsFromTheTcpExtLines() {
        String netstat = "TcpExt: SyncookiesSent SyncookiesRecv ListenOverflows ListenDrops\n"
                + "TcpExt: 0 0 46018 46018\n"
                + "IpExt: InNoRoutes InTruncatedPkts\n"
                + "IpExt: 0 0\n";
        assertEquals(46018, ListenOverflows.parse(netstat));
    }

    @Test
    void withoutTheCounterItIsUnknown() {
        assertEquals(-1, ListenOverflows.parse("IpExt: InNoRoutes\nIpExt: 0\n"));
        assertEquals(-1, ListenOverflows.parse(""));
    }

    @Test
    void thisMachinesCounterIsReadWhereThereIsProc() {
        if (java.nio.file.Files.exists(java.nio.file.Path.of("/proc/net/netstat"))) {
            assertTrue(ListenOverflows.count() >= 0);
        }
    }
}
