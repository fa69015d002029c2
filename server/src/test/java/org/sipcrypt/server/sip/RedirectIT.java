package org.sipcrypt.server.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.header.ContactHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/** Redirect mode (RFC 3261 §8.3): the server answers with where the user is instead of forwarding. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedirectIT {

    @TempDir
    Path dir;

    @Test
    void inviteForRegisteredUserIsAnswered302WithItsContacts() throws Exception {
        try (TestServer server = TestServer.start(dir, "mode", "redirect");
             TestUa desk = TestUa.start("bob", Transport.UDP);
             TestUa mobile = TestUa.start("bob", Transport.TCP);
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            desk.registerAt(server.address(Transport.UDP));
            mobile.registerAt(server.address(Transport.TCP));

            TestUa.Call call = alice.invite(desk.aor(), server.address(Transport.UDP));
            Response moved = call.invite().awaitFinal(TestUa.TIMEOUT);

            assertEquals(Response.MOVED_TEMPORARILY, moved.getStatusCode());
            assertEquals(List.of(desk.contactUri().toString(), mobile.contactUri().toString()).stream().sorted().toList(),
                    TestUa.contacts(moved).stream().map(ContactHeader::getAddress).map(a -> a.getURI().toString())
                            .sorted().toList());
            assertEquals(List.of(), desk.received(Request.INVITE), "a redirect server forwards nothing");
            assertEquals(List.of(), mobile.received(Request.INVITE), "a redirect server forwards nothing");
        }
    }

    @Test
    void inviteForUnknownUserIsAnswered404() throws Exception {
        try (TestServer server = TestServer.start(dir, "mode", "redirect");
             TestUa alice = TestUa.start("alice", Transport.TCP)) {
            TestUa.Call call = alice.invite(alice.uri("nobody", "127.0.0.1"), server.address(Transport.TCP));

            assertEquals(Response.NOT_FOUND, call.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
        }
    }

    @Test
    void inviteForUserWithoutBindingsIsAnswered480() throws Exception {
        try (TestServer server = TestServer.start(dir, "mode", "redirect");
             TestUa bob = TestUa.start("bob", Transport.UDP);
             TestUa alice = TestUa.start("alice", Transport.UDP)) {
            bob.registerAt(server.address(Transport.UDP));
            assertEquals(Response.OK, bob.register(server.address(Transport.UDP), 0).getStatusCode());

            TestUa.Call call = alice.invite(bob.aor(), server.address(Transport.UDP));

            assertEquals(Response.TEMPORARILY_UNAVAILABLE, call.invite().awaitFinal(TestUa.TIMEOUT).getStatusCode());
        }
    }
}
