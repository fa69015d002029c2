package org.sipcrypt.server.location;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * The location database in H2 server mode (a separate database server reached by JDBC URL) goes
 * away: REGISTER gets 503 with Retry-After, nothing hangs, and once the database is back the
 * server answers 200 again by itself.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class DatabaseOutageIT {

    @TempDir
    Path dir;

    /** Sends REGISTERs (new CSeq each) until one is answered with the status, within the timeout. */
    private static String registerUntil(SipSocket s, String hp, int[] cseq, String status, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            s.send(s.request("REGISTER", "sip:" + hp, "carol", "carol@" + hp, "db-outage", ++cseq[0],
                    s.contact("carol") + "Expires: 600\r\n"));
            String r = s.receive(Duration.ofSeconds(5));
            if (r != null && !r.startsWith("SIP/2.0 1")) {
                last = r;
                if (r.startsWith("SIP/2.0 " + status)) {
                    return r;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no " + status + " within " + timeout + "; last answer: " + last);
    }

    @Test
    void databaseOutageGets503AndTheServerRecoversWhenItReturns() throws Exception {
        System.setProperty("h2.bindAddress", "127.0.0.1");
        Path dbDir = dir.resolve("h2");
        Server h2 = Server.createTcpServer("-tcpPort", "0", "-ifNotExists", "-baseDir", dbDir.toString()).start();
        int port = h2.getPort();
        String url = "jdbc:h2:tcp://127.0.0.1:" + port + "/./sipcrypt";
        try (TestServer server = TestServer.start(dir.resolve("data"), "db", url);
             SipSocket s = SipSocket.udp(server.address(Transport.UDP))) {
            String hp = server.hostPort(Transport.UDP);
            int[] cseq = {0};
            registerUntil(s, hp, cseq, "200", Duration.ofSeconds(10));

            h2.stop();
            String unavailable = registerUntil(s, hp, cseq, "503", Duration.ofSeconds(30));
            assertTrue(unavailable.contains("Retry-After: 5"), unavailable);

            h2 = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists", "-baseDir",
                    dbDir.toString()).start();
            String ok = registerUntil(s, hp, cseq, "200", Duration.ofSeconds(30));
            assertNotNull(ok);
            assertTrue(ok.contains("expires="), ok);
        } finally {
            h2.stop();
        }
    }
}
