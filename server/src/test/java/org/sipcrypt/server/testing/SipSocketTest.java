package org.sipcrypt.server.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The test client's TCP reads: a server's 100 Trying and 180 written back to back arrive in one
 * read, and must still be two messages (a 180 swallowed with the 100 before it failed a proxy test
 * on a busy machine).
 */
class SipSocketTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String TRYING = "SIP/2.0 100 Trying\r\nCall-ID: c\r\nContent-Length: 0\r\n\r\n";
    private static final String RINGING = "SIP/2.0 180 Ringing\r\nCall-ID: c\r\nl: 3\r\n\r\nabc";
    private static final String OK = "SIP/2.0 200 OK\r\nCall-ID: c\r\nContent-Length: 2\r\n\r\nok";

    @Test
    void messagesThatArriveInOneReadAreReturnedOneByOne() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             SipSocket client = SipSocket.tcp(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                     listener.getLocalPort()));
             Socket server = listener.accept()) {
            OutputStream out = server.getOutputStream();
            // two messages and the first half of a third in one write
            out.write((TRYING + RINGING + OK.substring(0, 20)).getBytes(StandardCharsets.UTF_8));
            out.flush();
            assertEquals(TRYING, client.receive(WAIT));
            assertEquals(RINGING, client.awaitMessage("SIP/2.0 180", WAIT));
            out.write(OK.substring(20).getBytes(StandardCharsets.UTF_8));
            out.flush();
            assertEquals(OK, client.receive(WAIT));
            assertNull(client.receive(Duration.ofMillis(200)));

            out.write("SIP/2.0 200 OK\r\nContent-Length: 10\r\n\r\nshort".getBytes(StandardCharsets.UTF_8));
            out.flush();
            assertEquals("SIP/2.0 200 OK\r\nContent-Length: 10\r\n\r\nshort", client.receive(Duration.ofMillis(500)),
                    "bytes that never complete a message come back as they are once the wait is over");
        }
    }
}
