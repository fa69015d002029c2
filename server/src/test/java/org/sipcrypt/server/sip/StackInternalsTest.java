package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.message.MessageExt;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import javax.sip.SipFactory;
import javax.sip.header.Header;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;

/**
 * JAIN-SIP RI's own classes are reached through {@link StackInternals} only, apart from the
 * stack's plumbing and the Netty transport; and the facade reads what the RI holds.
 */
class StackInternalsTest {

    /** The files besides the facade that may name {@code gov.nist}: the stack's plumbing. */
    private static final Set<String> PLUMBING = Set.of(
            "org/sipcrypt/server/sip/StackInternals.java",
            "org/sipcrypt/server/sip/SipStackBuilder.java",
            "org/sipcrypt/server/sip/SipcryptSipStack.java",
            "org/sipcrypt/server/sip/Slf4jStackLogger.java",
            "org/sipcrypt/server/sip/Slf4jServerLogger.java",
            "org/sipcrypt/server/sip/WheelSipTimer.java");

    /** The package that implements the RI's message channels and processors. */
    private static final String TRANSPORT = "org/sipcrypt/server/transport/netty/";

    @Test
    void onlyThePlumbingTheNettyTransportAndTheFacadeNameTheRi() throws IOException {
        Path root = Path.of("src/main/java");
        assertTrue(Files.isDirectory(root), "run from the server module: " + root.toAbsolutePath());
        List<String> offenders;
        try (Stream<Path> files = Files.walk(root)) {
            offenders = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> {
                        String rel = root.relativize(p).toString().replace('\\', '/');
                        return !PLUMBING.contains(rel) && !rel.startsWith(TRANSPORT);
                    })
                    .filter(p -> {
                        try {
                            return Files.readString(p).contains("gov.nist");
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .map(p -> root.relativize(p).toString())
                    .sorted()
                    .toList();
        }
        assertEquals(List.of(), offenders, "these reach JAIN-SIP RI's classes around StackInternals");
    }

    @Test
    void readsAParsedMessageAsTheRiHoldsIt() throws Exception {
        var messages = SipFactory.getInstance().createMessageFactory();
        Request r = messages.createRequest("BYE sip:bob@127.0.0.1 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-1\r\n"
                + "Path: <sip:p1@127.0.0.1;lr>, <sip:p2@127.0.0.1;lr>\r\n"
                + "X-Thing: x-1, y\r\nMax-Forwards: 70\r\nFrom: <sip:a@127.0.0.1>;tag=1\r\nTo: <sip:b@127.0.0.1>;tag=2\r\n"
                + "Call-ID: c1\r\nCSeq: 2 BYE\r\nContent-Length: 0\r\n\r\n");
        assertEquals("<sip:p1@127.0.0.1;lr>", StackInternals.value((Header) r.getHeaders("Path").next()));
        assertEquals("c1", StackInternals.value(r.getHeader("Call-ID")));
        assertEquals("x-1, y", StackInternals.value(r.getHeader("X-Thing")));
        // not received on any socket: no local address, no carrier
        assertNull(StackInternals.local(r));
        assertNull(StackInternals.carrierOf(r));
        Object mark = new Object();
        StackInternals.attach(r, mark);
        assertSame(mark, ((MessageExt) r).getApplicationData());
    }

    @Test
    void itsAddressFactoryParsesUrisAsTheStackDoes() throws Exception {
        var ours = StackInternals.addressFactory();
        var stacks = SipFactory.getInstance().createAddressFactory();
        String uri = "sip:Alice@Example.COM;transport=tcp";
        assertEquals(stacks.createURI(uri), ours.createURI(uri));
        assertEquals(ours.createURI("sip:Alice@example.com;transport=TCP"), ours.createURI(uri));
    }
}
