package org.sipcrypt.server.sip.registrar;

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
import org.sipcrypt.server.testing.BobAndAlice;
import org.sipcrypt.server.testing.TestUa;
import org.sipcrypt.server.transport.Transport;

/** Bindings live in the database, so a restarted server still knows where its users are. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistrarRestartIT {

    @TempDir
    Path dir;

    @Test
    void bindingSurvivesRestartAndStillRoutesCalls() throws Exception {
        try (BobAndAlice u = BobAndAlice.start(dir, Transport.UDP, Transport.UDP)) {
            u.server().restart();

            Response query = u.bob().send(u.bob().newRegister(u.server().address(Transport.UDP))).awaitFinal(TestUa.TIMEOUT);
            assertEquals(Response.OK, query.getStatusCode());
            assertEquals(List.of(u.bob().contactUri().toString()), TestUa.contacts(query).stream()
                    .map(ContactHeader::getAddress).map(a -> a.getURI().toString()).toList());

            TestUa.Call call = u.alice().call(u.bob().aor(), u.server().address(Transport.UDP));
            assertEquals(u.bob().contactUri().toString(),
                    u.bob().awaitRequest(Request.INVITE, TestUa.TIMEOUT).getRequestURI().toString());
            assertEquals(Response.OK, call.hangUp().getStatusCode());
            u.bob().awaitRequest(Request.BYE, TestUa.TIMEOUT);
        }
    }
}
